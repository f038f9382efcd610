"""The wall's own turns, through ``run_turn`` directly (no adapter, no judge):
run with the wall's interpreter,

    adapters/python/runtimes/toolgate-wall-python/.venv/bin/python -m pytest \\
        adapters/python/runtimes/toolgate-wall-python
"""

from __future__ import annotations

import asyncio
import copy
import gc
import importlib.util
import json
import math
import sys
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import pytest

from toolgate_adapter import AbortSignal, Call, Tool, ToolContext, Turn, TurnOutcome


def _load_shim() -> ModuleType:
    """shim.py under a name of its own (every runtime folder has a shim.py)."""
    path = Path(__file__).resolve().parent / "shim.py"
    spec = importlib.util.spec_from_file_location("toolgate_wall_python_shim", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


shim = _load_shim()
T = TypeVar("T")

OBJECT = {"type": "object"}
PATH = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path"],
    "additionalProperties": False,
}
NUMBERS = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
}


class Log:
    """What ran: (tool name, call id, arguments), in start order."""

    def __init__(self) -> None:
        self.starts: list[tuple[str, str | None, Any]] = []
        #: Once set, stuck bodies let the next cancellation through (the
        #: test's own clean-up; the wall never waits for that).
        self.released = False

    def returning(self, name: str, value: Any, schema: dict[str, Any] | None = None) -> Tool:
        def execute(args: Any, context: ToolContext | None = None) -> Any:
            self.starts.append((name, context.call_id if context else None, args))
            return value

        return tool(name, execute, schema=schema)

    def raising(self, name: str, error: BaseException) -> Tool:
        def execute(args: Any, context: ToolContext | None = None) -> Any:
            self.starts.append((name, context.call_id if context else None, args))
            # a fresh exception per call, as a real body raises
            raise copy.copy(error)

        return tool(name, execute)

    def rejecting(self, name: str, error: BaseException) -> Tool:
        async def execute(args: Any, context: ToolContext | None = None) -> Any:
            self.starts.append((name, context.call_id if context else None, args))
            await asyncio.sleep(0)
            # a fresh exception per call, as a real body raises
            raise copy.copy(error)

        return tool(name, execute, is_async=True)

    def stuck(self, name: str) -> Tool:
        """A body that never settles and swallows every cancellation."""

        async def execute(args: Any, context: ToolContext | None = None) -> Any:
            self.starts.append((name, context.call_id if context else None, args))
            while True:
                try:
                    await asyncio.sleep(3600)
                except asyncio.CancelledError:
                    if self.released:
                        raise
                    # the tool that does not let go: its task's cancel() is undone
                    uncancel = getattr(asyncio.current_task(), "uncancel", None)
                    if uncancel is not None:
                        uncancel()

        return tool(name, execute, is_async=True)


def tool(
    name: str,
    execute: Callable[..., Any],
    *,
    schema: dict[str, Any] | None = None,
    check: Callable[[Any], str | None] | None = None,
    is_async: bool = False,
) -> Tool:
    return Tool(
        name=name,
        description=f"the {name} tool",
        input_schema=schema if schema is not None else OBJECT,
        check=check,
        execute=execute,
        is_async=is_async,
        behaviour={},
        index=0,
    )


def drive(main: Coroutine[Any, Any, T], log: Log | None = None) -> T:
    """Runs ``main`` on a fresh loop and checks that nothing escaped to the
    loop's exception handler (a task's exception nobody retrieved, a failing
    callback); then releases and ends the bodies the wall left behind
    (``asyncio.run`` would wait forever for a stuck one)."""
    loop = asyncio.new_event_loop()
    escaped: list[str] = []
    loop.set_exception_handler(lambda _loop, context: escaped.append(str(context["message"])))
    turn = loop.create_task(main)
    try:
        # asyncio.wait, not wait_for: a turn that never ends (nor when
        # cancelled) fails the test instead of hanging it
        loop.run_until_complete(asyncio.wait({turn}, timeout=10))
        assert turn.done(), "the turn did not end within 10 s"
        result = turn.result()
        # what the turn left unretrieved is reported when it is collected
        gc.collect()
        loop.run_until_complete(asyncio.sleep(0))
        assert escaped == [], f"escaped the turn: {escaped}"
        return result
    finally:
        if log is not None:
            log.released = True
        left = asyncio.all_tasks(loop)
        for task in left:
            task.cancel()
        if left:
            loop.run_until_complete(asyncio.wait(left, timeout=5))
        loop.close()


def run(tools: list[Tool], calls: list[Call], log: Log | None = None, **kwargs: Any) -> TurnOutcome:
    outcome: TurnOutcome = drive(shim.run_turn(Turn(tools=tools, calls=calls), **kwargs), log)
    return outcome


def content(outcome: TurnOutcome, index: int) -> str:
    text = outcome.results[index].delivered["content"]
    assert isinstance(text, str)
    return text


def part_bytes(outcome: TurnOutcome, index: int) -> int:
    delivered = outcome.results[index].delivered
    return len(json.dumps(delivered, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def test_every_outcome_in_one_turn_one_result_per_call_in_call_order() -> None:
    log = Log()

    def no_root(args: Any) -> str | None:
        return "no root" if args.get("path") == "/" else None

    tools = [
        log.returning("read", {"text": "héllo"}, schema=PATH),
        log.raising("boom", RuntimeError("disk on fire")),
        log.rejecting("later", ValueError("network down")),
        tool("guarded", log.returning("guarded", "ok").execute, schema=PATH, check=no_root),
    ]
    calls = [
        Call("c-1", "read", {"path": "a.txt"}),
        Call("c-2", "READ", {"path": "a.txt"}),
        Call("c-3", "read", {"path": 42}),
        Call("c-4", "boom", {}),
        Call("c-5", "later", {}),
        Call("c-6", "guarded", {"path": "/"}),
        Call("c-7", "read ", {"path": "a.txt"}),
    ]
    outcome = run(tools, calls)
    assert outcome.registration_error is None
    assert [r.call_id for r in outcome.results] == [c.id for c in calls]
    assert [r.is_error for r in outcome.results] == [False, True, True, True, True, True, True]
    assert json.loads(content(outcome, 0)) == {"text": "héllo"}
    assert content(outcome, 1).startswith('unknown tool "READ"; the tools are: "read"')
    assert "arguments/path" in content(outcome, 2)
    assert content(outcome, 3) == "tool error: RuntimeError: disk on fire"
    assert content(outcome, 4) == "tool error: ValueError: network down"
    assert content(outcome, 5) == 'invalid arguments for "guarded": no root'
    assert content(outcome, 6).startswith('unknown tool "read "')
    # only the valid calls ran, each with the model's call id
    assert [(name, call_id) for name, call_id, _ in log.starts] == [
        ("read", "c-1"),
        ("boom", "c-4"),
        ("later", "c-5"),
    ]
    for result in outcome.results:
        assert result.delivered["tool_use_id"] == result.call_id
        assert result.delivered["is_error"] is result.is_error


def test_no_coercion_bool_is_not_a_number_and_strings_stay_strings() -> None:
    log = Log()
    tools = [log.returning("add", 3, schema=NUMBERS)]
    calls = [
        Call("c1", "add", {"a": True, "b": 2}),
        Call("c2", "add", {"a": "1", "b": 2}),
        Call("c3", "add", {"a": 1.5, "b": 2}),
    ]
    outcome = run(tools, calls)
    assert [r.is_error for r in outcome.results] == [True, True, False]
    assert log.starts == [("add", "c3", {"a": 1.5, "b": 2})]


def test_huge_arguments_are_refused_before_the_validator_quickly() -> None:
    deep: dict[str, Any] = {"leaf": True}
    for _ in range(100_000):
        deep = {"next": deep}
    wide = {f"k{i}": i for i in range(999_000)}
    log = Log()
    calls = [
        Call("deep", "take", deep),
        Call("wide", "take", wide),
        Call("long", "take", {"blob": "x" * 10_000_000}),
        Call("fine", "take", {"n": [1, 2, 3]}),
    ]
    started = time.perf_counter()
    outcome = run([log.returning("take", "taken")], calls)
    assert time.perf_counter() - started < 1.0
    assert [r.is_error for r in outcome.results] == [True, True, True, False]
    assert "nested deeper than 64 levels" in content(outcome, 0)
    assert "more than 100000 values" in content(outcome, 1)
    assert "more than 1048576 characters" in content(outcome, 2)
    assert [call_id for _, call_id, _ in log.starts] == ["fine"]


class _Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("repr exploded")

    __str__ = __repr__


def test_hostile_outputs_get_a_bounded_result_without_raising() -> None:
    cyclic: dict[str, Any] = {"name": "loop"}
    cyclic["self"] = cyclic
    deep: dict[str, Any] = {"leaf": True}
    for _ in range(100_000):
        deep = {"next": deep}
    outputs: list[Any] = [
        cyclic,
        deep,
        math.nan,
        {1, 2},
        b"\x00\x01\x02",
        _Unprintable(),
        10**5000,
        "x" * 10_000_000,
        {f"k{i}": i for i in range(999_000)},
        None,
    ]
    log = Log()
    tools = [log.returning(f"t{i}", value) for i, value in enumerate(outputs)]
    calls = [Call(f"c{i}", f"t{i}", {}) for i in range(len(outputs))]
    outcome = run(tools, calls)
    assert [r.is_error for r in outcome.results] == [False] * len(outputs)
    for index in range(len(outputs)):
        assert part_bytes(outcome, index) <= 65_536
    assert json.loads(content(outcome, 0)) == {"name": "loop", "self": "[circular]"}
    assert '"[nested too deep]"' in content(outcome, 1)
    assert content(outcome, 2) == "null"
    assert json.loads(content(outcome, 3)) in ([1, 2], [2, 1])
    assert content(outcome, 4) == '"[3 bytes]"'
    assert "its repr failed: RuntimeError: repr exploded" in content(outcome, 5)
    assert content(outcome, 6) == '"[an integer of 16610 bits]"'
    assert content(outcome, 7).startswith("xxx")
    assert "\n[toolgate-wall-python: cut to fit " in content(outcome, 7)
    assert content(outcome, 8).startswith('{"k0":0,"k1":1,')
    assert content(outcome, 9) == "null"


def test_plain_outputs_render_as_json_dumps_writes_them() -> None:
    for value in [
        {"files": ["a.txt", "b.txt"], "count": 2},
        [1, "two", {"three": 3.5}, None, True],
        {"nested": {"é": ["✓", "😀", '"quoted"\n']}},
        {1: "int key", None: "none key"},
        -0.0,
    ]:
        text, was_cut = shim.render_json(value, depth=64, nodes=10_000, chars=65_536)
        assert not was_cut
        assert text == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def test_a_tool_that_never_settles_is_timed_out_and_not_awaited() -> None:
    log = Log()
    tools = [log.stuck("stuck"), log.returning("ok", "fine")]
    calls = [Call("c1", "stuck", {}), Call("c2", "ok", {})]
    limits = shim.Limits(deadline_ms=50)
    started = time.perf_counter()
    outcome = run(tools, calls, log, limits=limits)
    assert time.perf_counter() - started < 1.0
    assert [r.is_error for r in outcome.results] == [True, False]
    assert content(outcome, 0) == "timed out: the tool did not settle within 50 ms"
    # the default is below the adapter's settle window (2 s)
    assert shim.LIMITS.deadline_ms == 1_000


def test_an_abort_answers_at_once_keeps_finished_results_and_starts_nothing_more() -> None:
    async def scenario() -> tuple[TurnOutcome, float, Log]:
        log = holder
        signal = AbortSignal()
        tools = [log.returning("ok", {"text": "hello"}), log.stuck("stuck")]
        calls = [Call("c1", "ok", {}), Call("c2", "stuck", {})]
        task = asyncio.ensure_future(shim.run_turn(Turn(tools, calls, signal)))
        await asyncio.sleep(0.05)
        assert not task.done()
        aborted = time.perf_counter()
        signal.abort()
        # asyncio.wait, not wait_for: a turn that waits for its stuck tool
        # must fail this test, not hang it
        await asyncio.wait({task}, timeout=1.0)
        assert task.done(), "the turn did not end after the abort"
        return task.result(), time.perf_counter() - aborted, log

    holder = Log()
    outcome, took, log = drive(scenario(), holder)
    assert took < 0.1
    assert [r.call_id for r in outcome.results] == ["c1", "c2"]
    assert [r.is_error for r in outcome.results] == [False, True]
    assert json.loads(content(outcome, 0)) == {"text": "hello"}
    assert content(outcome, 1) == "aborted: the turn was aborted while the tool ran"

    # aborted before the turn: every call answered, no body starts
    log = Log()
    signal = AbortSignal()
    signal.abort()
    turn = Turn([log.returning("ok", 1)], [Call("c1", "ok", {}), Call("c2", "nope", {})], signal)
    outcome = drive(shim.run_turn(turn))
    assert log.starts == []
    assert [r.is_error for r in outcome.results] == [True, True]
    assert content(outcome, 0) == "aborted: the turn was aborted before the tool started"


def test_cancelling_the_turn_s_task_stops_every_call_and_raises_at_once() -> None:
    log = Log()

    async def scenario() -> float:
        turn = Turn([log.stuck("stuck")], [Call("c1", "stuck", {})])
        task = asyncio.ensure_future(shim.run_turn(turn))
        await asyncio.sleep(0.05)
        cancelled = time.perf_counter()
        task.cancel()
        await asyncio.wait({task}, timeout=1.0)
        assert task.cancelled(), "the cancelled turn did not end"
        assert turn.signal.aborted is False
        return time.perf_counter() - cancelled

    assert drive(scenario(), log) < 0.1


def test_base_exceptions_of_a_tool_are_error_results_but_an_interrupt_goes_on() -> None:
    log = Log()

    class Halt(BaseException):
        """What trio, gevent or test frameworks raise: not an Exception."""

    tools = [
        log.raising("exits", SystemExit(2)),
        log.rejecting("halts", Halt("stop here")),
        log.raising("empty", RuntimeError("")),
    ]
    calls = [Call("c1", "exits", {}), Call("c2", "halts", {}), Call("c3", "empty", {})]
    outcome = run(tools, calls)
    assert [content(outcome, i) for i in range(3)] == [
        "tool error: SystemExit: 2",
        "tool error: Halt: stop here",
        "tool error: RuntimeError (without a message)",
    ]
    with pytest.raises(KeyboardInterrupt):
        run([log.raising("interrupted", KeyboardInterrupt())], [Call("c1", "interrupted", {})])


def test_duplicate_names_are_refused_at_registration() -> None:
    log = Log()
    outcome = run([log.returning("read", 1), log.returning("read", 2)], [Call("c1", "read", {})])
    assert outcome.results == []
    assert outcome.registration_error is not None
    assert outcome.registration_error.name == "DuplicateToolNameError"
    assert log.starts == []


def test_local_refs_resolve_and_remote_refs_refuse_the_call_without_a_fetch() -> None:
    log = Log()
    local = {
        "$defs": {"path": {"type": "string"}},
        "type": "object",
        "properties": {"path": {"$ref": "#/$defs/path"}},
    }
    remote = {"type": "object", "properties": {"path": {"$ref": "https://example.invalid/p"}}}
    tools = [
        log.returning("local", "ok", schema=local),
        log.returning("remote", "ok", schema=remote),
    ]
    calls = [
        Call("c1", "local", {"path": 1}),
        Call("c2", "local", {"path": "a"}),
        Call("c3", "remote", {"path": "a"}),
    ]
    outcome = run(tools, calls)
    assert [r.is_error for r in outcome.results] == [True, False, True]
    assert "could not be validated" in content(outcome, 2)
    assert [call_id for _, call_id, _ in log.starts] == ["c2"]
