"""The shim on a few turns, through ``run_turn`` as the kit calls it (run with the
runtime's own interpreter: ``.venv/bin/python -m pytest
adapters/python/runtimes/langgraph-python`` from the repository root)."""

import asyncio
import json
from typing import Any

import pytest
import shim

from toolgate_adapter import Call, Tool, ToolEvent, Turn, TurnOutcome, executor_for, is_async

PATH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path"],
    "additionalProperties": False,
}


class Recorder:
    """The events of every tool of a turn, in order."""

    def __init__(self) -> None:
        self.events: list[ToolEvent] = []

    def started(self) -> list[tuple[int, str | None]]:
        return [(e["index"], e.get("callId")) for e in self.events if e["event"] == "start"]


def make_tool(
    name: str, behaviour: dict[str, Any], index: int, recorder: Recorder, schema: Any = None
) -> Tool:
    return Tool(
        name=name,
        description=f"The {name} tool",
        input_schema=PATH_SCHEMA if schema is None else schema,
        check=None,
        execute=executor_for(behaviour, index=index, on_event=recorder.events.append),
        is_async=is_async(behaviour),
        behaviour=behaviour,
        index=index,
        on_event=recorder.events.append,
    )


def run(tools: list[Tool], calls: list[Call]) -> TurnOutcome:
    return asyncio.run(shim.run_turn(Turn(tools=tools, calls=calls)))


def test_a_working_call_delivers_its_output_as_json_text_with_the_call_id() -> None:
    recorder = Recorder()
    tools = [make_tool("read", {"returns": {"text": "hello"}}, 0, recorder)]
    outcome = run(tools, [Call("call_1", "read", {"path": "notes.txt"})])

    assert outcome.registration_error is None
    assert len(outcome.results) == 1
    result = outcome.results[0]
    assert result.call_id == "call_1"
    assert result.is_error is False
    # langchain-core's _stringify: json.dumps(ensure_ascii=False) of the output
    assert result.delivered == {
        "content": json.dumps({"text": "hello"}),
        "status": "success",
        "tool_call_id": "call_1",
    }
    # the call id reached the body through ToolRuntime.tool_call_id
    assert recorder.started() == [(0, "call_1")]


def test_an_async_tool_and_a_sync_tool_answer_in_call_order() -> None:
    recorder = Recorder()
    tools = [
        make_tool("slow", {"resolves": "later"}, 0, recorder),
        make_tool("fast", {"returns": "now"}, 1, recorder),
    ]
    outcome = run(
        tools, [Call("call_a", "slow", {"path": "a"}), Call("call_b", "fast", {"path": "b"})]
    )

    assert [(r.call_id, r.delivered["content"]) for r in outcome.results] == [
        ("call_a", "later"),
        ("call_b", "now"),
    ]


def test_an_unknown_tool_gets_an_error_tool_message_and_runs_nothing() -> None:
    recorder = Recorder()
    tools = [make_tool("read", {"returns": "x"}, 0, recorder)]
    outcome = run(tools, [Call("call_1", "ghost", {"path": "a"})])

    assert len(outcome.results) == 1
    result = outcome.results[0]
    assert result.call_id == "call_1"
    assert result.is_error is True
    assert result.delivered["status"] == "error"
    assert result.delivered["content"] == "Error: ghost is not a valid tool, try one of [read]."
    assert recorder.started() == []


def test_a_throwing_tool_rejects_the_whole_turn_under_the_default_error_handler() -> None:
    # ToolNode's default handle_tool_errors (_default_handle_tool_errors) re-raises
    # anything but a ToolInvocationError: the graph run raises, the sibling's result
    # is lost with it.
    recorder = Recorder()
    tools = [
        make_tool("work", {"throws": {"error": "disk on fire"}}, 0, recorder),
        make_tool("read", {"returns": "fine"}, 1, recorder),
    ]
    with pytest.raises(RuntimeError, match="disk on fire"):
        run(tools, [Call("call_1", "work", {"path": "a"}), Call("call_2", "read", {"path": "b"})])
    assert (0, "call_1") in recorder.started()


def test_a_json_schema_dict_is_not_validated_so_refused_arguments_reach_the_tool() -> None:
    # StructuredTool._parse_input returns a dict-schema tool's input as it is
    seen: list[Any] = []

    def body(args: Any, _context: Any = None) -> str:
        seen.append(args)
        return "ran"

    tool = Tool(
        name="read",
        description="The read tool",
        input_schema=PATH_SCHEMA,
        check=None,
        execute=body,
        is_async=False,
        behaviour={"returns": "ran"},
        index=0,
    )
    outcome = run([tool], [Call("call_1", "read", {"path": 42, "extra": True})])

    assert seen == [{"path": 42, "extra": True}]
    assert outcome.results[0].is_error is False
    assert outcome.results[0].delivered["content"] == "ran"


def test_duplicate_names_are_not_refused_and_the_last_tool_wins() -> None:
    recorder = Recorder()
    tools = [
        make_tool("read", {"returns": "one"}, 0, recorder),
        make_tool("read", {"returns": "two"}, 1, recorder),
    ]
    outcome = run(tools, [Call("call_1", "read", {"path": "a"})])

    assert outcome.registration_error is None
    assert outcome.results[0].delivered["content"] == "two"
    assert recorder.started() == [(1, "call_1")]


def test_progress_goes_to_the_custom_stream() -> None:
    recorder = Recorder()
    behaviour = {"progress": [1, "half"], "then": {"resolves": "done"}}
    tools = [make_tool("long", behaviour, 0, recorder)]
    outcome = run(tools, [Call("call_1", "long", {"path": "a"})])

    assert outcome.notes == ["custom stream: 1", 'custom stream: "half"']
    assert outcome.results[0].delivered["content"] == "done"


def test_a_cancelled_turn_cancels_the_pending_tool_and_keeps_no_result() -> None:
    # LangGraph has no abort entry of its own: the run is stopped by cancelling the
    # task awaiting it, and the finished sibling's ToolMessage goes with the step
    recorder = Recorder()

    async def cancel_while_pending() -> None:
        slow_started = asyncio.Event()

        def on_slow_event(event: ToolEvent) -> None:
            recorder.events.append(event)
            if event["event"] == "start":
                slow_started.set()

        slow = {"pending": {"onAbort": "reject"}}
        tools = [
            make_tool("ok", {"returns": "kept?"}, 0, recorder),
            Tool(
                name="slow",
                description="The slow tool",
                input_schema=PATH_SCHEMA,
                check=None,
                execute=executor_for(slow, index=1, on_event=on_slow_event),
                is_async=True,
                behaviour=slow,
                index=1,
            ),
        ]
        calls = [Call("call_1", "ok", {"path": "a"}), Call("call_2", "slow", {"path": "b"})]
        task = asyncio.ensure_future(shim.run_turn(Turn(tools=tools, calls=calls)))
        await slow_started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(asyncio.wait_for(cancel_while_pending(), timeout=10))
    # (each event also carries "at", the time it happened)
    settles = [
        {k: v for k, v in e.items() if k != "at"} for e in recorder.events if e["event"] == "settle"
    ]
    assert {"event": "settle", "index": 1, "callId": "call_2", "outcome": "rejected"} in settles
