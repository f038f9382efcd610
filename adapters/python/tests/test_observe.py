"""Cases run through a shim and recorded as observations: the events, the
abort timings, the settle window, what escapes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
import types
from typing import Any

import pytest
from conftest import SHIMS

from toolgate_adapter import ResultSeen, ToolContext, Turn, TurnOutcome, behaviours
from toolgate_adapter.__main__ import load_shim
from toolgate_adapter.observe import (
    ABANDONED,
    ESCAPES,
    cpu_wait_ms,
    observe_case,
    schedstat_wait_ms,
    window_owed,
)

DIRECT = load_shim(SHIMS / "direct")
OBJECT = {"type": "object"}
# one loop for every case, never closed, as the adapter runs them: a turn
# left pending (a tool swallowing its cancellation) stays on it, where
# asyncio.run would wait for it forever at its end
LOOP = asyncio.new_event_loop()


def tool(name: str, behaviour: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": name, "inputSchema": OBJECT, "behaviour": behaviour, **extra}


def call(number: int, name: str, arguments: Any = None) -> dict[str, Any]:
    return {"id": f"call_{number}", "name": name, "arguments": arguments or {}}


def check(scenario: dict[str, Any], settle_ms: float = 500) -> dict[str, Any]:
    """The observation of ``scenario`` on the direct shim, which must hold
    the fields every observation has."""
    observation: dict[str, Any] = LOOP.run_until_complete(
        observe_case(DIRECT, scenario, settle_ms=settle_ms)
    )
    assert {"registration", "turn", "results", "ran", "uncaught", "measured"} <= set(observation)
    return observation


def test_a_working_tool_delivers_its_output_with_the_call_id() -> None:
    seen = check({"tools": [tool("add", {"returns": {"sum": 3}})], "turn": [call(1, "add")]})
    assert seen["turn"] == "completed"
    assert seen["results"] == [
        {"callId": "call_1", "isError": False, "delivered": {"sum": 3}, "bytes": 9}
    ]
    assert seen["ran"] == [{"tool": 0, "callId": "call_1", "settled": "fulfilled"}]
    assert seen["notes"] == ["direct"]
    assert seen["measured"]["deliveredBytes"] == 9


def test_sync_and_async_bodies_are_what_their_behaviour_says() -> None:
    seen = check(
        {
            "tools": [
                tool("a", {"throws": {"error": "bad"}}),
                tool("b", {"rejects": {"string": "worse"}}),
                tool("c", {"resolves": "ok"}),
            ],
            "turn": [call(1, "a"), call(2, "b"), call(3, "c")],
        }
    )
    assert [r["isError"] for r in seen["results"]] == [True, True, False]
    assert seen["results"][0]["delivered"] == "RuntimeError('bad')"
    assert seen["results"][1]["delivered"] == "Exception('worse')"


def test_a_turn_that_raises_is_rejected_with_its_type_and_message() -> None:
    seen = check({"tools": [], "turn": [call(1, "raise-the-turn")]})
    assert seen["turn"] == {
        "rejected": {
            "name": "LookupError",
            "message": "the whole turn raised",
            "afterAbort": False,
            "carriesAbort": False,
        }
    }


def test_an_abort_before_the_turn_cancels_its_task_before_anything_runs() -> None:
    seen = check(
        {"tools": [tool("a", {"returns": 1})], "turn": [call(1, "a")], "abort": {"before": {}}}
    )
    assert seen["turn"] == "aborted"
    assert seen["ran"] == []
    assert "abortToEndMs" in seen["measured"]


def test_an_abort_while_pending_comes_once_the_tool_started() -> None:
    seen = check(
        {
            "tools": [tool("wait", {"pending": {"onAbort": "reject"}})],
            "turn": [call(1, "wait")],
            "abort": {"whilePending": "call_1"},
        }
    )
    # the body rejects on the abort before the turn ends
    assert seen["ran"] == [{"tool": 0, "callId": "call_1", "settled": "rejected"}]
    assert seen["turn"] == "aborted"
    assert seen["uncaught"] == 0


def test_a_tool_that_swallows_the_cancellation_leaves_the_turn_pending() -> None:
    seen = check(
        {
            "tools": [tool("stuck", {"pending": {"onAbort": "ignore"}})],
            "turn": [call(1, "stuck")],
            "abort": {"whilePending": "call_1"},
        },
        settle_ms=200,
    )
    assert seen["turn"] == "pending"
    assert "abortToEndMs" not in seen["measured"]
    assert seen["measured"]["wallMs"] >= 200
    # once observed, the tool lets go: nothing of it lingers into the next case
    assert not behaviours._SWALLOWING
    assert all(task.done() for task in ABANDONED)


def test_an_abort_after_a_call_settled_lets_the_runtime_see_its_result_first() -> None:
    seen = check(
        {
            "tools": [
                tool("fast", {"resolves": "done"}),
                tool("wait", {"pending": {"onAbort": "reject"}}),
            ],
            "turn": [call(1, "fast"), call(2, "wait")],
            "abort": {"afterSettled": "call_1"},
        }
    )
    # the direct shim runs calls one after another: the abort comes when
    # the first has settled and the loop is idle, i.e. while the second waits
    assert seen["ran"] == [
        {"tool": 0, "callId": "call_1", "settled": "fulfilled"},
        {"tool": 1, "callId": "call_2", "settled": "rejected"},
    ]
    assert seen["turn"] == "aborted"
    measured = seen["measured"]
    if cpu_wait_ms() is not None:
        assert 0 <= measured["cpuWaitMs"] <= measured["wallMs"] + 0.01, measured
        assert 0 <= measured["abortToEndCpuWaitMs"] <= measured["cpuWaitMs"], measured


def test_the_window_is_owed_the_waits_for_a_cpu_up_to_one_more_window() -> None:
    assert window_owed(100, 100.5, 2000, 0) == 0
    assert window_owed(100, 400, 2000, 0) == 300
    assert window_owed(100, 400, 2000, 300) == 0
    assert window_owed(100, 900, 2000, 300) == 500
    assert window_owed(0, 5000, 2000, 0) == 2000
    assert window_owed(0, 5000, 2000, 2000) == 0
    assert window_owed(None, 5000, 2000, 0) == 0


def test_the_waits_for_a_cpu_are_read_from_the_schedulers_statistics() -> None:
    # ns on a CPU, ns waiting for one while runnable, timeslices
    assert schedstat_wait_ms("1373559906 760429235 201\n") == 760.429235
    assert schedstat_wait_ms("1373559906 760429235") is None
    assert schedstat_wait_ms("1 -2 3") is None
    assert schedstat_wait_ms("") is None
    if cpu_wait_ms() is None or not hasattr(os, "sched_setaffinity"):
        pytest.skip("no scheduler statistics here: the wall time alone is measured")
    # this thread and a spinning process on one CPU: the thread, always
    # ready to run, waits for the CPU about half the time
    cpu = min(os.sched_getaffinity(0))
    kept = os.sched_getaffinity(0)
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        os.sched_setaffinity(spinner.pid, {cpu})
        os.sched_setaffinity(0, {cpu})
        time.sleep(0.05)
        before, start = cpu_wait_ms(), time.perf_counter()
        while time.perf_counter() - start < 0.4:
            pass
        waited = (cpu_wait_ms() or 0.0) - (before or 0.0)
        wall = (time.perf_counter() - start) * 1000
    finally:
        os.sched_setaffinity(0, kept)
        spinner.kill()
        spinner.wait()
    assert 0.1 * wall <= waited <= wall, (waited, wall)


def test_progress_reaches_the_context_and_the_events() -> None:
    seen = check(
        {
            "tools": [tool("p", {"progress": [1, {"$": "cyclic"}], "then": {"returns": "end"}})],
            "turn": [call(1, "p")],
        }
    )
    assert seen["results"][0]["delivered"] == "end"


@pytest.mark.parametrize("family", ["cyclic", "function", "undefined"])
def test_hostile_outputs_are_encoded(family: str) -> None:
    seen = check({"tools": [tool("h", {"returns": {"$": family}})], "turn": [call(1, "h")]})
    assert seen["results"][0]["isError"] is False


def test_an_exception_escaping_into_the_loop_is_counted() -> None:
    async def run() -> Any:
        loop = asyncio.get_running_loop()
        ESCAPES.install(loop)

        def fail() -> None:
            raise ValueError("escaped")

        loop.call_soon(fail)
        return await observe_case(DIRECT, {"tools": [], "turn": []}, settle_ms=200)

    assert LOOP.run_until_complete(run())["uncaught"] == 1


def test_what_tools_do_after_the_turn_is_abandoned_is_not_part_of_it() -> None:
    # a runtime that reaches a tool body only once the kit has given up on
    # the turn (a worker thread late to the start line): that start is no
    # part of the observed turn, which had no abort
    async def late_start(turn: Turn) -> TurnOutcome:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            turn.tools[0].execute({}, ToolContext(call_id="call_1"))
            raise
        return TurnOutcome()

    late = types.ModuleType("late_start")
    late.run_turn = late_start  # type: ignore[attr-defined]
    scenario = {"tools": [tool("t", {"returns": 1})], "turn": [call(1, "t")]}
    seen = LOOP.run_until_complete(observe_case(late, scenario, settle_ms=100))
    assert seen["turn"] == "pending"
    assert seen["ran"] == []


def test_a_sync_tool_in_a_worker_thread_finishes_before_an_abort_while_a_sibling_waits() -> None:
    # as runtimes that run sync tools with asyncio.to_thread: the abort
    # "while call_2 is pending" waits for call_1's body, queued in a worker
    # thread, to start and settle, and its result is kept
    async def threaded(turn: Turn) -> TurnOutcome:
        first, second = turn.tools
        work = asyncio.ensure_future(
            asyncio.to_thread(first.execute, {}, ToolContext(call_id="call_1"))
        )
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(work, second.execute({}, ToolContext(call_id="call_2")))
        return TurnOutcome(results=[ResultSeen("call_1", False, work.result())])

    module = types.ModuleType("threaded")
    module.run_turn = threaded  # type: ignore[attr-defined]
    scenario = {
        "tools": [
            tool("fast", {"returns": "kept"}),
            tool("wait", {"pending": {"onAbort": "reject"}}),
        ],
        "turn": [call(1, "fast"), call(2, "wait")],
        "abort": {"whilePending": "call_2"},
    }
    for _ in range(20):
        seen = LOOP.run_until_complete(observe_case(module, scenario, settle_ms=1000))
        assert sorted(seen["ran"], key=lambda r: r["tool"]) == [
            {"tool": 0, "callId": "call_1", "settled": "fulfilled"},
            {"tool": 1, "callId": "call_2", "settled": "rejected"},
        ]
        assert seen["results"][0]["delivered"] == "kept"


def test_a_start_reported_late_from_a_tool_process_is_placed_by_when_it_happened() -> None:
    # as a tool process reports over a pipe: call_1 started (and settled,
    # which brings the abort) before the abort, but its start arrives after
    # it; call_2 really started after it
    async def remote(turn: Turn) -> TurnOutcome:
        first, second = turn.tools
        early = time.monotonic()
        first.on_event(
            {"event": "settle", "index": 0, "callId": "call_1", "outcome": "fulfilled", "at": early}
        )
        await turn.signal.wait()
        first.on_event({"event": "start", "index": 0, "callId": "call_1", "at": early})
        second.on_event({"event": "start", "index": 1, "callId": "call_2", "at": time.monotonic()})
        return TurnOutcome()

    module = types.ModuleType("remote")
    module.run_turn = remote  # type: ignore[attr-defined]
    module.cancellation = "signal"  # type: ignore[attr-defined]
    scenario = {
        "tools": [tool("a", {"returns": 1}), tool("b", {"returns": 2})],
        "turn": [call(1, "a"), call(2, "b")],
        "abort": {"afterSettled": "call_1"},
    }
    seen = LOOP.run_until_complete(observe_case(module, scenario, settle_ms=1000))
    # its settle, which came before its start, is matched to it; call_2
    # never settled
    assert seen["ran"] == [
        {"tool": 0, "callId": "call_1", "settled": "fulfilled"},
        {"tool": 1, "callId": "call_2", "afterAbort": True, "settled": "pending"},
    ]


def test_a_turn_that_raises_after_the_abort_says_so_and_whether_it_carries_it() -> None:
    async def raises_after(turn: Turn) -> TurnOutcome:
        await turn.signal.wait()
        try:
            raise asyncio.CancelledError
        except asyncio.CancelledError as cancelled:
            raise RuntimeError("the run was stopped") from cancelled

    module = types.ModuleType("wrapped")
    module.run_turn = raises_after  # type: ignore[attr-defined]
    module.cancellation = "signal"  # type: ignore[attr-defined]
    scenario = {"tools": [], "turn": [], "abort": {"before": {}}}
    seen = LOOP.run_until_complete(observe_case(module, scenario, settle_ms=1000))
    assert seen["turn"] == {
        "rejected": {
            "name": "RuntimeError",
            "message": "the run was stopped",
            "afterAbort": True,
            "carriesAbort": True,
        }
    }
