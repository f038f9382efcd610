"""The mcp-python-stdio shim on a few turns (pytest; run with the runtime's
own interpreter: ``mcp-python-stdio/.venv/bin/python -m pytest
adapters/python/runtimes/mcp-python-stdio`` from the repository root)."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import MCPError

from toolgate_adapter import Call, Tool, ToolEvent, Turn, TurnOutcome, executor_for, is_async

HERE = Path(__file__).resolve().parent
READ_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path"],
}


def load_shim() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mcp_python_stdio_shim", HERE / "shim.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


shim = load_shim()


def tool(name: str, behaviour: dict[str, Any], index: int, events: list[ToolEvent]) -> Tool:
    return Tool(
        name=name,
        description=f"The {name} tool",
        input_schema=READ_SCHEMA,
        check=None,
        execute=executor_for(behaviour, index=index, on_event=events.append),
        is_async=is_async(behaviour),
        behaviour=behaviour,
        index=index,
        on_event=events.append,
    )


def run(tools: list[Tool], calls: list[Call]) -> TurnOutcome:
    async def turn() -> TurnOutcome:
        outcome: TurnOutcome = await asyncio.wait_for(shim.run_turn(Turn(tools, calls)), 60)
        return outcome

    return asyncio.run(turn())


def started(events: list[ToolEvent]) -> list[int]:
    return [event["index"] for event in events if event["event"] == "start"]


def test_a_working_call_delivers_its_output() -> None:
    events: list[ToolEvent] = []
    outcome = run(
        [tool("read", {"returns": {"text": "hello"}}, 0, events)],
        [Call("call_1", "read", {"path": "notes.txt"})],
    )
    assert outcome.registration_error is None
    assert len(outcome.results) == 1
    result = outcome.results[0]
    assert result.call_id == "call_1"
    assert result.is_error is False
    assert result.delivered["content"] == [{"type": "text", "text": '{"text": "hello"}'}]
    assert result.delivered["isError"] is False
    assert started(events) == [0]


def test_the_tool_events_come_back_before_the_answer() -> None:
    # The body runs in the child; its start and settle reach on_event here
    # over the side channel before the child answers the call.
    events: list[ToolEvent] = []
    outcome = run(
        [tool("read", {"returns": "x"}, 0, events)],
        [Call("call_1", "read", {"path": "notes.txt"})],
    )
    assert [r.delivered["content"][0]["text"] for r in outcome.results] == ["x"]
    assert [(e["event"], e.get("outcome")) for e in events] == [
        ("start", None),
        ("settle", "fulfilled"),
    ]


def test_parallel_calls_each_get_their_own_result() -> None:
    events: list[ToolEvent] = []
    outcome = run(
        [tool("read", {"resolves": "x"}, 0, events)],
        [Call("call_1", "read", {"path": "a"}), Call("call_2", "read", {"path": "b"})],
    )
    assert [r.call_id for r in outcome.results] == ["call_1", "call_2"]
    assert [r.delivered["content"][0]["text"] for r in outcome.results] == ["x", "x"]
    assert started(events) == [0, 0]


def test_an_unknown_tool_rejects_the_turn_and_runs_nothing() -> None:
    # The low-level Server forwards any name to on_call_tool; the handler raises
    # for a name it never listed (the SDK's tutorial), and the SDK answers that
    # with a JSON-RPC error, which ClientSession.call_tool raises.
    events: list[ToolEvent] = []
    with pytest.raises(MCPError, match="Unknown tool: ghost"):
        run(
            [tool("read", {"returns": "x"}, 0, events)],
            [Call("call_1", "ghost", {"path": "notes.txt"})],
        )
    assert started(events) == []


def test_refused_arguments_reach_the_tool() -> None:
    # mcp 2.x's low-level Server advertises the schema and never applies it.
    events: list[ToolEvent] = []
    outcome = run(
        [tool("read", {"returns": "x"}, 0, events)],
        [Call("call_1", "read", {"path": 42})],
    )
    assert [r.is_error for r in outcome.results] == [False]
    assert started(events) == [0]


def test_a_throwing_tool_is_a_json_rpc_error() -> None:
    events: list[ToolEvent] = []
    with pytest.raises(MCPError, match="disk on fire") as raised:
        run(
            [tool("work", {"throws": {"error": "disk on fire"}}, 0, events)],
            [Call("call_1", "work", {"path": "notes.txt"})],
        )
    # jsonrpc_dispatcher.py: a handler exception other than MCPError is code 0
    assert raised.value.error.code == 0
    assert started(events) == [0]


def test_numeric_progress_reaches_the_client() -> None:
    events: list[ToolEvent] = []
    outcome = run(
        [tool("long", {"progress": [1, 2], "then": {"returns": "done"}}, 0, events)],
        [Call("call_1", "long", {"path": "notes.txt"})],
    )
    assert [r.delivered["content"][0]["text"] for r in outcome.results] == ["done"]
    assert [note.split(" total=")[0] for note in outcome.notes] == [
        "progress for call_1: 1.0",
        "progress for call_1: 2.0",
    ]
