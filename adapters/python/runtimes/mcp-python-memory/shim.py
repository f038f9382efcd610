"""toolgate runtime shim: mcp 2.3.0 (the MCP Python SDK), a low-level ``Server``
and a ``Client`` in one process over the SDK's in-memory transport.

The case's tools are advertised by the server's ``on_list_tools`` handler with
their JSON Schemas as given, and run by its ``on_call_tool`` handler; the
client is ``mcp.Client(server, mode="legacy")``, which connects the two through
``InMemoryTransport`` (JSON-RPC messages over anyio memory streams, the
``initialize`` handshake). Each call of the model's turn is one
``ClientSession.call_tool``, all in flight together. What the shim returns is
the ``CallToolResult`` each ``call_tool`` returns. See README.md for every
choice.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from typing import Any

import mcp_types as types
from mcp import Client
from mcp.server import Server, ServerRequestContext
from mcp.shared.dispatcher import ProgressFnT

from toolgate_adapter import Call, ResultSeen, Runtime, Tool, ToolContext, Turn, TurnOutcome

runtime = Runtime(
    id="mcp-python-memory",
    package="mcp",
    version="2.3.0",
    path=(
        "low-level Server(on_list_tools, on_call_tool) + Client(server, mode='legacy') "
        "over InMemoryTransport, one ClientSession.call_tool per call"
    ),
    homepage="https://github.com/modelcontextprotocol/python-sdk",
)

# What the low-level Server cannot express (README.md, "Choices the API forced").
not_applicable = {
    "check": (
        "the low-level Server applies no validation to tools/call arguments at all (mcp 2.x "
        "removed the v1 jsonschema check, docs/migration.md), so there is no hook to add one to"
    ),
    "duplicateNames": (
        "the low-level Server has no tool registry that could accept or refuse a name: the "
        "tools are the list the on_list_tools handler returns and the dispatch on params.name "
        "the on_call_tool handler does itself"
    ),
}

# The SDK's cancellation of a request is its caller's task being cancelled: the
# cancelled ClientSession.call_tool sends notifications/cancelled and the server
# cancels the handler's cancel scope (README.md, "Cancellation").
cancellation = "task"


def text_of(value: Any) -> str:
    """The tool's value as the text of an MCP text content block: a string as
    itself, anything else as its JSON text (``json.dumps``). Runs inside the
    server's handler, so what ``json.dumps`` raises reaches the SDK as the
    handler's exception."""
    return value if isinstance(value, str) else json.dumps(value)


def build_server(tools: list[Tool]) -> Server[Any]:
    """A low-level Server advertising ``tools`` with their JSON Schemas as given
    and running the first tool of a called name (the SDK's own tutorial shape:
    ``docs_src/lowlevel/tutorial002.py``: dispatch on ``params.name``, raise for
    a name never listed)."""
    listed = [
        types.Tool(name=tool.name, description=tool.description, input_schema=tool.input_schema)
        for tool in tools
    ]

    async def list_tools(
        _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = next((t for t in tools if t.name == params.name), None)
        if tool is None:
            raise ValueError(f"Unknown tool: {params.name}")
        sends: list[asyncio.Future[None]] = []

        def progress(value: Any) -> None:
            # The tool reports progress synchronously; the SDK's report is a
            # coroutine (a no-op when the request carries no progressToken).
            sends.append(asyncio.ensure_future(ctx.session.report_progress(value)))

        try:
            # MCP gives the handler ctx.request_id, the client's JSON-RPC counter,
            # not the model's call id: call_id is None (README.md).
            value = await tool.call(params.arguments, ToolContext(progress=progress))
        finally:
            # The progress notifications go out before the answer; what the tool
            # raised goes on to the SDK unchanged.
            await asyncio.gather(*sends)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text_of(value))])

    return Server(
        "toolgate-case", version="0.0.0", on_list_tools=list_tools, on_call_tool=call_tool
    )


def delivered_of(result: types.CallToolResult) -> dict[str, Any]:
    """The CallToolResult as the client parsed it, in its wire (JSON) form."""
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


#: The SDK's loggers: its modules' (``mcp.*``), and the client session's and
#: server session's own names (``client/session.py``, ``server/session.py``).
LOGGERS = ("mcp", "client", "server")


class LogNotes(logging.Handler):
    """Keeps what the SDK logs (warnings and above: a handler that raised, a
    notification the client refused) as notes."""

    def __init__(self, notes: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.notes = notes

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                error = record.exc_info[1]
                text += f" ({type(error).__name__}: {str(error)[:500]})"
        except Exception as error:  # noqa: BLE001 (a logged value's text may raise)
            text = f"(unprintable: {type(error).__name__})"
        self.notes.append(f"{record.name} {record.levelname}: {text}")


async def run_turn(turn: Turn) -> TurnOutcome:
    notes: list[str] = []
    log = LogNotes(notes)
    for name in LOGGERS:
        logging.getLogger(name).addHandler(log)
    try:
        return await run_calls(turn, notes)
    finally:
        for name in LOGGERS:
            logging.getLogger(name).removeHandler(log)


async def run_calls(turn: Turn, notes: list[str]) -> TurnOutcome:
    server = build_server(turn.tools)
    client = Client(server, mode="legacy")
    connection = Connection(client)
    await connection.opened()

    def on_progress(call: Call) -> ProgressFnT:
        async def record(progress: float, total: float | None, message: str | None) -> None:
            notes.append(
                f"progress for {call.id}: {progress!r} total={total!r} message={message!r}"
            )

        return record

    # One turn: every call_tool issued before any is awaited, each in its own
    # task (asyncio.gather); the first call_tool that raises raises out of the
    # turn, as a host awaiting its turn's calls together sees it.
    pending = [
        asyncio.ensure_future(
            client.session.call_tool(call.name, call.arguments, progress_callback=on_progress(call))
        )
        for call in turn.calls
    ]
    # The connection is closed once every call has settled (closing earlier
    # would cancel the server's handlers of the calls still running).
    connection.close_when_settled(pending)
    answers = await asyncio.gather(*pending)
    return TurnOutcome(
        results=[
            # MCP results carry no call id: linked to the case's call whose
            # request it answered.
            ResultSeen(call_id=call.id, is_error=answer.is_error, delivered=delivered_of(answer))
            for call, answer in zip(turn.calls, answers, strict=True)
        ],
        notes=notes,
    )


class Connection:
    """Holds ``client`` entered (its ``async with``) in a task of its own, so
    that the turn may end (a call raised, the turn's task was cancelled) while
    the calls still in flight finish; closes it once they have."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._close = asyncio.Event()
        self._task = asyncio.ensure_future(self._hold())
        self._closer: asyncio.Future[None] | None = None

    async def _hold(self) -> None:
        try:
            async with self._client:
                self._ready.set_result(None)
                await self._close.wait()
        except BaseException as error:
            if not self._ready.done():
                self._ready.set_exception(error)
            else:
                raise

    async def opened(self) -> None:
        try:
            await asyncio.shield(self._ready)
        except asyncio.CancelledError:
            self._close.set()
            raise

    def close_when_settled(self, calls: Sequence[asyncio.Future[Any]]) -> None:
        async def close() -> None:
            await asyncio.gather(*calls, return_exceptions=True)
            self._close.set()

        self._closer = asyncio.ensure_future(close())
