"""The MCP server of the mcp-python-stdio shim: a child process (``python
server.py``, the venv's interpreter) spoken to by the shim's ``Client`` over
the SDK's stdio transport (its stdin/stdout).

Besides stdin/stdout, the child has one side channel to the shim: a Unix
socket whose path is in ``TOOLGATE_SIDE_CHANNEL``, carrying newline-delimited
JSON both ways::

    shim -> child  {"type": "tools", "tools": [{index, name, description, inputSchema, behaviour}]}
    child -> shim  {"type": "registered"}
    child -> shim  {"type": "event", "seq": n, "event": {...}}   (an event of executor_for)
    shim -> child  {"type": "ack", "seq": n}                    (the shim has called on_event)

Nothing of this touches what the MCP SDK does with the calls. The server is
built exactly as in ``../mcp-python-memory/shim.py`` (``build_server``): a
low-level ``Server`` advertising the JSON Schemas as given, its
``on_call_tool`` handler dispatching on ``params.name``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from typing import Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from toolgate_adapter import ToolContext, ToolEvent, executor_for, is_async


class SideChannel:
    """The child's end of the side channel: sends events, waits for acks."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.seq = 0
        self.acked = 0
        self.acked_changed = asyncio.Event()

    def send(self, message: dict[str, Any]) -> None:
        self.writer.write(json.dumps(message).encode() + b"\n")

    def on_event(self, event: ToolEvent) -> None:
        self.seq += 1
        self.send({"type": "event", "seq": self.seq, "event": event})

    async def flushed(self) -> None:
        """Returns once the shim has called on_event for every event sent so far."""
        target = self.seq
        while self.acked < target:
            self.acked_changed.clear()
            await self.acked_changed.wait()

    async def receive(self) -> dict[str, Any] | None:
        line = await self.reader.readline()
        return json.loads(line) if line else None

    async def read_acks(self) -> None:
        while (message := await self.receive()) is not None:
            if message.get("type") == "ack":
                self.acked = max(self.acked, int(message["seq"]))
                self.acked_changed.set()
        # The shim closed its end: the turn is over (or the adapter is
        # gone). A handler whose tool swallows its cancellation would keep
        # this process alive, and under anyio spinning, for good (seen: such
        # orphans at half a core each, slowing every later case and run);
        # nothing here is observed any more, so the process ends now.
        os._exit(0)


def text_of(value: Any) -> str:
    """As in the in-memory shim: a string as itself, anything else ``json.dumps``."""
    return value if isinstance(value, str) else json.dumps(value)


def build_server(specs: list[dict[str, Any]], channel: SideChannel) -> Server[Any]:
    """The in-memory shim's ``build_server``, with each body built here by
    ``executor_for`` (SHIM.md, "out-of-process tools")."""
    bodies: list[Callable[..., Any]] = [
        executor_for(spec["behaviour"], index=spec["index"], on_event=channel.on_event)
        for spec in specs
    ]
    listed = [
        types.Tool(
            name=spec["name"], description=spec["description"], input_schema=spec["inputSchema"]
        )
        for spec in specs
    ]

    async def list_tools(
        _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        index = next((i for i, spec in enumerate(specs) if spec["name"] == params.name), None)
        if index is None:
            raise ValueError(f"Unknown tool: {params.name}")
        sends: list[asyncio.Future[None]] = []

        def progress(value: Any) -> None:
            sends.append(asyncio.ensure_future(ctx.session.report_progress(value)))

        body = bodies[index]
        context = ToolContext(progress=progress)
        try:
            if is_async(specs[index]["behaviour"]):
                value = await body(params.arguments, context)
            else:
                value = body(params.arguments, context)
        finally:
            # The progress notifications go out, and the shim has heard the
            # tool's "settle", before the answer leaves; what the tool raised
            # goes on to the SDK unchanged.
            await asyncio.gather(*sends)
            await channel.flushed()
        return types.CallToolResult(content=[types.TextContent(type="text", text=text_of(value))])

    return Server(
        "toolgate-case", version="0.0.0", on_list_tools=list_tools, on_call_tool=call_tool
    )


async def main() -> None:
    reader, writer = await asyncio.open_unix_connection(os.environ["TOOLGATE_SIDE_CHANNEL"])
    channel = SideChannel(reader, writer)
    first = await channel.receive()
    if first is None or first.get("type") != "tools":
        raise RuntimeError(f"mcp-python-stdio server: expected the tools first, got {first!r}")
    server = build_server(first["tools"], channel)
    acks = asyncio.ensure_future(channel.read_acks())
    channel.send({"type": "registered"})
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
    # stdin closed (the client's shutdown): what was written to the side
    # channel (late events) goes out, then the channel ends.
    acks.cancel()
    await writer.drain()
    writer.close()
    await writer.wait_closed()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
