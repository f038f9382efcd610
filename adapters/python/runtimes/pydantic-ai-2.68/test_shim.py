"""The shim on a few turns, with the runtime's own interpreter:

    adapters/python/runtimes/pydantic-ai-2.68/.venv/bin/python -m pytest \
        adapters/python/runtimes/pydantic-ai-2.68
"""

from __future__ import annotations

import asyncio
import importlib.util
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pydantic_ai.exceptions import RunCancelled

from toolgate_adapter import Call, Tool, ToolContext, Turn, TurnOutcome

READ_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path"],
}


def _load_shim() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "pydantic_ai_2_68_shim", Path(__file__).with_name("shim.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


shim = _load_shim()


class Recorder:
    """Tool bodies that record each run: its arguments, context and thread."""

    def __init__(self) -> None:
        self.runs: list[tuple[str, Any, ToolContext | None, str]] = []

    def returning(self, name: str, value: Any) -> Tool:
        def execute(args: Any, context: ToolContext | None = None) -> Any:
            self.runs.append((name, args, context, threading.current_thread().name))
            return value

        return _tool(name, execute, is_async=False)

    def raising(self, name: str, error: BaseException) -> Tool:
        def execute(args: Any, context: ToolContext | None = None) -> Any:
            self.runs.append((name, args, context, threading.current_thread().name))
            raise error

        return _tool(name, execute, is_async=False)

    def resolving(self, name: str, value: Any) -> Tool:
        async def execute(args: Any, context: ToolContext | None = None) -> Any:
            self.runs.append((name, args, context, threading.current_thread().name))
            await asyncio.sleep(0)
            return value

        return _tool(name, execute, is_async=True)


def _tool(name: str, execute: Any, *, is_async: bool, check: Any = None) -> Tool:
    return Tool(
        name=name,
        description=f"The {name} tool",
        input_schema=READ_SCHEMA,
        check=check,
        execute=execute,
        is_async=is_async,
        behaviour={},
        index=0,
    )


def run(turn: Turn) -> TurnOutcome:
    outcome = asyncio.run(shim.run_turn(turn))
    assert isinstance(outcome, TurnOutcome)
    return outcome


def test_a_working_call_delivers_its_output_with_the_call_id() -> None:
    tools = Recorder()
    turn = Turn(
        tools=[tools.returning("read", {"text": "hello"}), tools.resolving("stat", 7)],
        calls=[Call("call_1", "read", {"path": "a.txt"}), Call("call_2", "stat", {"path": "b"})],
    )
    outcome = run(turn)
    assert outcome.registration_error is None
    assert [(r.call_id, r.is_error) for r in outcome.results] == [
        ("call_1", False),
        ("call_2", False),
    ]
    first, second = (r.delivered for r in outcome.results)
    assert first["content"] == {"text": "hello"}
    assert first["outcome"] == "success"
    assert second["content"] == 7
    # the body got the parsed arguments and the call id from RunContext
    (name, args, context, thread), (_, _, async_context, async_thread) = sorted(
        tools.runs, key=lambda run: run[0]
    )
    assert (name, args) == ("read", {"path": "a.txt"})
    assert context is not None and context.call_id == "call_1"
    assert async_context is not None and async_context.call_id == "call_2"
    # pydantic-ai runs a plain function in a worker thread, a coroutine on the loop
    assert thread != async_thread


def test_an_unknown_tool_is_a_retried_result_and_runs_nothing() -> None:
    tools = Recorder()
    turn = Turn(
        tools=[tools.returning("read", "x")],
        calls=[Call("call_1", "ghost", {"path": "a"}), Call("call_2", "read", {"path": "a"})],
    )
    outcome = run(turn)
    unknown, sibling = outcome.results
    assert (unknown.call_id, unknown.is_error) == ("call_1", True)
    assert unknown.delivered["outcome"] == "retried"
    assert "Unknown tool name: 'ghost'" in unknown.delivered["content"]
    assert (sibling.call_id, sibling.is_error) == ("call_2", False)
    assert [run[0] for run in tools.runs] == ["read"]


def test_a_throwing_tool_rejects_the_whole_run() -> None:
    tools = Recorder()
    turn = Turn(
        tools=[tools.raising("boom", RuntimeError("disk on fire")), tools.returning("read", "x")],
        calls=[Call("call_1", "boom", {"path": "a"}), Call("call_2", "read", {"path": "a"})],
    )
    # pydantic-ai turns only ModelRetry and ToolFailed into results; any other
    # exception leaves agent.run, and the shim lets it out (the kit records it)
    with pytest.raises(RuntimeError, match="disk on fire"):
        run(turn)


def test_the_check_refuses_through_args_validator_and_the_tool_never_runs() -> None:
    tools = Recorder()
    read = tools.returning("read", "x")
    read.check = lambda args: "outside" if args.get("path") == "/etc/passwd" else None
    turn = Turn(
        tools=[read],
        calls=[
            Call("call_1", "read", {"path": "/etc/passwd"}),
            Call("call_2", "read", {"path": "a"}),
        ],
    )
    refused, accepted = run(turn).results
    assert (refused.call_id, refused.is_error) == ("call_1", True)
    assert refused.delivered["outcome"] == "retried"
    assert refused.delivered["content"] == "outside"
    assert (accepted.call_id, accepted.is_error) == ("call_2", False)
    assert [run[1] for run in tools.runs] == [{"path": "a"}]


def test_arguments_the_schema_refuses_still_reach_the_tool() -> None:
    # Tool.from_schema validates with any_schema(): the JSON Schema is sent, not checked
    tools = Recorder()
    turn = Turn(tools=[tools.returning("read", "x")], calls=[Call("call_1", "read", {"path": 42})])
    (result,) = run(turn).results
    assert (result.call_id, result.is_error) == ("call_1", False)
    assert [run[1] for run in tools.runs] == [{"path": 42}]


def test_two_tools_of_one_name_are_a_registration_error() -> None:
    tools = Recorder()
    turn = Turn(
        tools=[tools.returning("read", "a"), tools.returning("read", "b")],
        calls=[Call("call_1", "read", {"path": "a"})],
    )
    outcome = run(turn)
    assert outcome.registration_error is not None
    assert outcome.registration_error.name == "UserError"
    assert "Tool name conflicts with existing tool: 'read'" in outcome.registration_error.message
    assert outcome.results == []
    assert tools.runs == []


def test_an_abort_before_the_turn_cancels_the_run_through_its_token() -> None:
    tools = Recorder()
    turn = Turn(tools=[tools.returning("read", "x")], calls=[Call("call_1", "read", {"path": "a"})])
    turn.signal.abort()
    with pytest.raises(RunCancelled):
        run(turn)
    assert tools.runs == []
