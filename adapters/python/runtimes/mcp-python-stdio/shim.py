"""toolgate runtime shim: mcp 2.3.0 (the MCP Python SDK), a ``Client`` talking
to a low-level ``Server`` in a child process (``python server.py``, the venv's
interpreter) over the SDK's stdio transport.

The client is ``mcp.Client(StdioServerParameters(...), mode="legacy")``, which
spawns the child through the SDK's own ``stdio_client`` and speaks
newline-delimited JSON-RPC over its stdin/stdout. The tools run in the child,
built there by ``executor_for`` (SHIM.md, "out-of-process tools"); their
events come back over a side channel (a Unix socket, see server.py) and are
handed to each tool's ``on_event`` here. Each call of the model's turn is one
``ClientSession.call_tool``, all in flight together; what the shim returns is
the ``CallToolResult`` each returns. See README.md for every choice.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.shared.dispatcher import ProgressFnT

from toolgate_adapter import Call, ResultSeen, Runtime, Tool, Turn, TurnOutcome

HERE = Path(__file__).resolve().parent
SERVER = HERE / "server.py"

runtime = Runtime(
    id="mcp-python-stdio",
    package="mcp",
    version="2.3.0",
    path=(
        "Client(StdioServerParameters(python server.py), mode='legacy') over stdio_client to a "
        "low-level Server(on_list_tools, on_call_tool) on stdio_server in a child process, "
        "one ClientSession.call_tool per call"
    ),
    homepage="https://github.com/modelcontextprotocol/python-sdk",
)

# As in ../mcp-python-memory (README.md there, "Choices the API forced").
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

# A cancelled ClientSession.call_tool sends notifications/cancelled down the
# pipe; the child cancels the handler's cancel scope (README.md).
cancellation = "task"

#: The SDK's loggers: its modules' (``mcp.*``), and the client session's and
#: server session's own names (``client/session.py``, ``server/session.py``).
LOGGERS = ("mcp", "client", "server")


class LogNotes(logging.Handler):
    """Keeps what the SDK logs in this process (warnings and above) as notes."""

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


def delivered_of(result: types.CallToolResult) -> dict[str, Any]:
    """The CallToolResult as the client parsed it, in its wire (JSON) form."""
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


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
    side = SideChannel(turn.tools, notes)
    await side.open()
    client = Client(
        StdioServerParameters(
            command=sys.executable,
            args=[str(SERVER)],
            env={"TOOLGATE_SIDE_CHANNEL": side.path},
            cwd=HERE,
        ),
        mode="legacy",
    )
    connection = Connection(client, side)
    await connection.opened()

    def on_progress(call: Call) -> ProgressFnT:
        async def record(progress: float, total: float | None, message: str | None) -> None:
            notes.append(
                f"progress for {call.id}: {progress!r} total={total!r} message={message!r}"
            )

        return record

    # One turn: every call_tool issued before any is awaited; the first that
    # raises raises out of the turn (asyncio.gather).
    pending = [
        asyncio.ensure_future(
            client.session.call_tool(call.name, call.arguments, progress_callback=on_progress(call))
        )
        for call in turn.calls
    ]
    # The child is stopped once every call has settled, and the side channel
    # closed once the child has sent what it had (late events).
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


class SideChannel:
    """The shim's end of server.py's side channel: a Unix socket the child
    connects to. It sends the child the tools, relays the child's events to
    each tool's ``on_event`` (then acknowledges them), and learns when the
    child has registered its tools."""

    def __init__(self, tools: list[Tool], notes: list[str]) -> None:
        self.tools = tools
        self.notes = notes
        self.path = os.path.join(
            tempfile.gettempdir(), f"toolgate-mcp-py-{os.getpid()}-{secrets.token_hex(6)}.sock"
        )
        self.registered: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.ended = asyncio.Event()
        self._server: asyncio.AbstractServer | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self._server = await asyncio.start_unix_server(self._serve, path=self.path)

    def _send(self, writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
        writer.write(json.dumps(message).encode() + b"\n")

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        # The child is connected: the socket file has served its purpose (and
        # would outlive an adapter that exits before this turn's teardown).
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        try:
            self._send(
                writer,
                {
                    "type": "tools",
                    "tools": [
                        {
                            "index": tool.index,
                            "name": tool.name,
                            "description": tool.description,
                            "inputSchema": tool.input_schema,
                            "behaviour": tool.behaviour,
                        }
                        for tool in self.tools
                    ],
                },
            )
            while line := await reader.readline():
                message = json.loads(line)
                if message["type"] == "event":
                    event = message["event"]
                    self.tools[event["index"]].on_event(event)
                    self._send(writer, {"type": "ack", "seq": message["seq"]})
                elif message["type"] == "registered" and not self.registered.done():
                    self.registered.set_result(None)
        except (ConnectionError, OSError) as error:
            self.notes.append(f"side channel: {error!r}")
        finally:
            self.ended.set()
            writer.close()

    async def close(self) -> None:
        """Stops accepting; waits (bounded) for the child to end the channel
        after the last events it had, then drops it and its socket file."""
        if self._server is not None:
            self._server.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.ended.wait(), 5)
        if self._writer is not None:
            self._writer.close()
        with contextlib.suppress(OSError):
            os.unlink(self.path)


class Connection:
    """Holds ``client`` entered (its ``async with``: the child process and the
    session) in a task of its own, so that the turn may end (a call raised,
    the turn's task was cancelled) while the calls still in flight finish;
    closes it, then the side channel, once they have."""

    def __init__(self, client: Client, side: SideChannel) -> None:
        self._client = client
        self._side = side
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._close = asyncio.Event()
        self._task = asyncio.ensure_future(self._hold())
        self._closer: asyncio.Future[None] | None = None

    async def _hold(self) -> None:
        try:
            try:
                async with self._client:
                    # The handshake is done; the child has registered its tools
                    # before it started serving, so this is at once.
                    await self._side.registered
                    self._ready.set_result(None)
                    await self._close.wait()
            finally:
                await self._side.close()
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
