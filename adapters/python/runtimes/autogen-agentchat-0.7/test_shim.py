"""The shim on a few turns, through AgentChat's own AssistantAgent.run (SHIM.md).

Run from the repository root:
``adapters/python/runtimes/autogen-agentchat-0.7/.venv/bin/python -m pytest -q -p no:cacheprovider
adapters/python/runtimes/autogen-agentchat-0.7``.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from toolgate_adapter import Call, Tool, ToolContext, Turn, TurnOutcome

sys.path.insert(0, str(Path(__file__).resolve().parent))

import shim

PATH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path"],
}
NUMBERS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}


def make_tool(
    name: str,
    execute: Any,
    *,
    is_async: bool = False,
    check: Any = None,
    schema: dict[str, Any] | None = None,
    behaviour: dict[str, Any] | None = None,
) -> Tool:
    return Tool(
        name=name,
        description=f"The {name} tool",
        input_schema=PATH_SCHEMA if schema is None else schema,
        check=check,
        execute=execute,
        is_async=is_async,
        behaviour={} if behaviour is None else behaviour,
        index=0,
    )


def run(tools: list[Tool], calls: list[Call]) -> TurnOutcome:
    return asyncio.run(shim.run_turn(Turn(tools=tools, calls=calls)))


def test_a_working_call_delivers_its_output_with_its_call_id() -> None:
    seen: list[Any] = []

    def read(args: Any, context: ToolContext | None = None) -> str:
        seen.append(args)
        return "hello"

    outcome = run([make_tool("read", read)], [Call("call_1", "read", {"path": "a.txt"})])

    assert seen == [{"path": "a.txt"}]
    assert outcome.registration_error is None
    assert [(r.call_id, r.is_error) for r in outcome.results] == [("call_1", False)]
    assert outcome.results[0].delivered == {
        "call_id": "call_1",
        "name": "read",
        "content": "hello",
        "is_error": False,
    }


def test_a_dict_output_reaches_the_model_as_its_python_str() -> None:
    def read(args: Any, context: ToolContext | None = None) -> dict[str, Any]:
        return {"text": "hello", "ok": True}

    outcome = run([make_tool("read", read)], [Call("call_1", "read", {"path": "a"})])

    assert outcome.results[0].delivered["content"] == "{'text': 'hello', 'ok': True}"


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

    assert [r.delivered["content"] for r in outcome.results] == ["s", "a"]
    assert threads["async"] == threading.get_ident()
    assert threads["sync"] != threading.get_ident()


def test_the_schema_refuses_a_wrong_type_before_the_tool_runs() -> None:
    ran: list[Any] = []

    def read(args: Any, context: ToolContext | None = None) -> str:
        ran.append(args)
        return "ran"

    outcome = run(
        [make_tool("read", read)],
        [Call("call_1", "read", {"path": 42}), Call("call_2", "read", {"path": "b"})],
    )

    assert ran == [{"path": "b"}]
    assert [(r.call_id, r.is_error) for r in outcome.results] == [
        ("call_1", True),
        ("call_2", False),
    ]
    assert "Input should be a valid string" in outcome.results[0].delivered["content"]


def test_lax_validation_coerces_and_drops_what_the_schema_refuses() -> None:
    ran: list[Any] = []

    def add(args: Any, context: ToolContext | None = None) -> str:
        ran.append(args)
        return "ran"

    outcome = run(
        [make_tool("add", add, schema=NUMBERS_SCHEMA)],
        [
            Call("call_1", "add", {"a": "1", "b": 2}),
            Call("call_2", "add", {"a": True, "b": 2}),
            Call("call_3", "add", {"a": 1, "b": 2, "c": 3}),
        ],
    )

    # "1" and true are coerced, the extra "c" is dropped: the tool runs three times
    assert ran == [{"a": 1.0, "b": 2.0}] * 3
    assert [r.is_error for r in outcome.results] == [False, False, False]


def test_the_extra_check_refuses_through_the_arguments_model() -> None:
    ran: list[Any] = []

    def read(args: Any, context: ToolContext | None = None) -> str:
        ran.append(args)
        return "ran"

    def check(args: Any) -> str | None:
        return "path must not be secret" if args.get("path") == "secret" else None

    outcome = run(
        [make_tool("read", read, check=check)],
        [Call("call_1", "read", {"path": "ok"}), Call("call_2", "read", {"path": "secret"})],
    )

    assert ran == [{"path": "ok"}]
    assert [(r.call_id, r.is_error) for r in outcome.results] == [
        ("call_1", False),
        ("call_2", True),
    ]
    assert "path must not be secret" in outcome.results[1].delivered["content"]


def test_a_throw_and_an_unknown_tool_are_error_results_beside_a_success() -> None:
    def work(args: Any, context: ToolContext | None = None) -> str:
        raise RuntimeError("disk on fire")

    def read(args: Any, context: ToolContext | None = None) -> str:
        return "fine"

    outcome = run(
        [make_tool("work", work), make_tool("read", read)],
        [
            Call("call_1", "work", {"path": "a"}),
            Call("call_2", "ghost", {}),
            Call("call_3", "read", {"path": "b"}),
        ],
    )

    assert [(r.call_id, r.is_error, r.delivered["content"]) for r in outcome.results] == [
        ("call_1", True, "disk on fire"),
        ("call_2", True, "Error: tool 'ghost' not found in any workbench"),
        ("call_3", False, "fine"),
    ]


def test_duplicate_names_are_refused_at_registration() -> None:
    def body(args: Any, context: ToolContext | None = None) -> str:
        return "x"

    outcome = run(
        [make_tool("read", body), make_tool("read", body)],
        [Call("call_1", "read", {"path": "a"})],
    )

    assert outcome.registration_error is not None
    assert outcome.registration_error.name == "ValueError"
    assert "Tool names must be unique" in outcome.registration_error.message
    assert outcome.results == []


def test_progress_goes_through_a_streaming_tool_as_agent_events() -> None:
    def long(args: Any, context: ToolContext | None = None) -> str:
        assert context is not None and context.progress is not None
        context.progress({"percent": 10})
        context.progress({"percent": 90})
        return "done"

    outcome = run(
        [make_tool("long", long, behaviour={"progress": [], "then": {"returns": "done"}})],
        [Call("call_1", "long", {"path": "a"})],
    )

    assert [(r.call_id, r.is_error, r.delivered["content"]) for r in outcome.results] == [
        ("call_1", False, "done")
    ]
    assert "the agent's run carried 2 ToolProgressEvent(s) of its tools" in outcome.notes


def test_an_abort_before_the_turn_ends_it_in_the_model_request() -> None:
    ran: list[Any] = []

    def read(args: Any, context: ToolContext | None = None) -> str:
        ran.append(args)
        return "x"

    turn = Turn(tools=[make_tool("read", read)], calls=[Call("call_1", "read", {"path": "a"})])
    turn.signal.abort()
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(shim.run_turn(turn))
    assert ran == []


def test_an_abort_while_a_tool_is_pending_cancels_it_and_leaves_the_run_waiting() -> None:
    async def scenario() -> None:
        started = asyncio.Event()
        cancelled: list[bool] = []

        async def stuck(args: Any, context: ToolContext | None = None) -> str:
            started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.append(True)
                raise
            return "never"

        turn = Turn(
            tools=[make_tool("stuck", stuck, is_async=True)],
            calls=[Call("call_1", "stuck", {"path": "a"})],
        )
        task = asyncio.create_task(shim.run_turn(turn))
        await asyncio.wait_for(started.wait(), timeout=5)
        turn.signal.abort()
        done, _ = await asyncio.wait({task}, timeout=0.5)
        # the token cancelled the tool, and the agent waits on its event queue for good
        # (README.md, Results)
        assert cancelled == [True]
        assert not done
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
