"""The shim on a few turns, through the SDK's own Runner.run (SHIM.md).

Run from the repository root:
``adapters/python/runtimes/openai-agents-0.24/.venv/bin/python -m pytest
adapters/python/runtimes/openai-agents-0.24``.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from agents.exceptions import ModelBehaviorError, UserError

from toolgate_adapter import Call, Tool, ToolContext, Turn, TurnOutcome

sys.path.insert(0, str(Path(__file__).resolve().parent))

import shim

PATH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path"],
}


def make_tool(
    name: str,
    execute: Any,
    *,
    is_async: bool = False,
    check: Any = None,
    schema: dict[str, Any] | None = None,
) -> Tool:
    return Tool(
        name=name,
        description=f"The {name} tool",
        input_schema=PATH_SCHEMA if schema is None else schema,
        check=check,
        execute=execute,
        is_async=is_async,
        behaviour={},
        index=0,
    )


def run(tools: list[Tool], calls: list[Call]) -> TurnOutcome:
    return asyncio.run(shim.run_turn(Turn(tools=tools, calls=calls)))


def test_a_working_call_delivers_its_output_with_its_call_id() -> None:
    seen: list[tuple[Any, str | None]] = []

    def read(args: Any, context: ToolContext | None = None) -> str:
        seen.append((args, None if context is None else context.call_id))
        return "hello"

    outcome = run([make_tool("read", read)], [Call("call_1", "read", {"path": "a.txt"})])

    assert seen == [({"path": "a.txt"}, "call_1")]
    assert outcome.registration_error is None
    assert [(r.call_id, r.is_error) for r in outcome.results] == [("call_1", None)]
    assert outcome.results[0].delivered == {
        "call_id": "call_1",
        "output": "hello",
        "type": "function_call_output",
    }


def test_a_sync_tool_runs_in_a_worker_thread_an_async_one_on_the_loop() -> None:
    threads: dict[str, int] = {}

    def sync_body(args: Any, context: ToolContext | None = None) -> str:
        threads["sync"] = threading.get_ident()
        return "s"

    async def async_body(args: Any, context: ToolContext | None = None) -> str:
        threads["async"] = threading.get_ident()
        return "a"

    outcome = run(
        [make_tool("s", sync_body), make_tool("a", async_body, is_async=True)],
        [Call("call_1", "s", {"path": "x"}), Call("call_2", "a", {"path": "y"})],
    )

    assert [r.delivered["output"] for r in outcome.results] == ["s", "a"]
    assert threads["async"] == threading.get_ident()
    assert threads["sync"] != threading.get_ident()


def test_an_unknown_tool_rejects_the_whole_run_and_runs_nothing() -> None:
    ran: list[str] = []

    def read(args: Any, context: ToolContext | None = None) -> str:
        ran.append("read")
        return "hello"

    with pytest.raises(ModelBehaviorError, match="Tool ghost not found in agent toolgate"):
        run(
            [make_tool("read", read)],
            [Call("call_1", "ghost", {}), Call("call_2", "read", {"path": "a"})],
        )
    assert ran == []


def test_a_throwing_tool_rejects_the_run_with_a_user_error() -> None:
    def work(args: Any, context: ToolContext | None = None) -> str:
        raise RuntimeError("disk on fire")

    with pytest.raises(UserError, match="Error running tool work: disk on fire"):
        run([make_tool("work", work)], [Call("call_1", "work", {"path": "a"})])


def test_the_schema_is_not_checked_but_the_extra_check_refuses() -> None:
    ran: list[Any] = []

    def read(args: Any, context: ToolContext | None = None) -> str:
        ran.append(args)
        return "ran"

    def check(args: Any) -> str | None:
        return "path must not be secret" if args.get("path") == "secret" else None

    outcome = run(
        [make_tool("read", read, check=check)],
        [Call("call_1", "read", {"path": 42}), Call("call_2", "read", {"path": "secret"})],
    )

    # {"path": 42} breaks the schema and still runs; the check's refusal is the output
    assert ran == [{"path": 42}]
    assert [(r.call_id, r.delivered["output"]) for r in outcome.results] == [
        ("call_1", "ran"),
        ("call_2", "path must not be secret"),
    ]


def test_a_dict_output_reaches_the_model_as_its_python_repr() -> None:
    def read(args: Any, context: ToolContext | None = None) -> dict[str, Any]:
        return {"text": "hello", "ok": True}

    outcome = run([make_tool("read", read)], [Call("call_1", "read", {"path": "a"})])

    assert outcome.results[0].delivered["output"] == "{'text': 'hello', 'ok': True}"


def test_duplicate_names_are_kept_and_the_last_one_runs() -> None:
    def first(args: Any, context: ToolContext | None = None) -> str:
        return "first"

    def second(args: Any, context: ToolContext | None = None) -> str:
        return "second"

    outcome = run(
        [make_tool("read", first), make_tool("read", second)],
        [Call("call_1", "read", {"path": "a"})],
    )

    assert outcome.registration_error is None
    assert [r.delivered["output"] for r in outcome.results] == ["second"]
    assert any("Tool name collision detected" in note for note in outcome.notes)


def test_cancelling_the_task_ends_the_run_while_a_tool_is_pending() -> None:
    async def scenario() -> None:
        started = asyncio.Event()

        async def stuck(args: Any, context: ToolContext | None = None) -> str:
            started.set()
            await asyncio.Event().wait()
            return "never"

        turn = Turn(
            tools=[make_tool("stuck", stuck, is_async=True)],
            calls=[Call("call_1", "stuck", {"path": "a"})],
        )
        task = asyncio.create_task(shim.run_turn(turn))
        await asyncio.wait_for(started.wait(), timeout=5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, timeout=1)

    asyncio.run(scenario())
