"""One boundary case on a runtime, through its shim: the case's
tools and turn built in Python, the abort timed by latches on the tools' own
events, the turn given a settle window, and what happened encoded as the
suite's observation (``corpus/schema/boundary-observation.schema.json``).

The same steps as ``adapters/node/boundary/observe.mjs``; where JavaScript
waits one macrotask, this waits until the event loop has nothing else ready
(every callback the settle made ready has run), which is what a macrotask
guarantees there.
"""

from __future__ import annotations

import asyncio
import concurrent.futures.thread
import gc
import json
import queue
import resource
import selectors
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType, ModuleType
from typing import Any

from .behaviours import executor_for, is_async, is_pending, release_swallowing
from .encode import encode_delivered, utf8_bytes
from .shim_api import AbortSignal, Call, Tool, ToolEvent, Turn, TurnOutcome, on_loop
from .values import materialize

#: How many loop iterations ``until_idle`` waits at most.
_IDLE_TURNS = 10_000
#: How many 1 ms hand-overs of the GIL ``until_idle`` waits at most for
#: busy threads.
_BUSY_TURNS = 500
#: How long the loop's thread lets go of the GIL at a time.
_GIL_HANDOFF_S = 0.001
_EXECUTOR_FILE = concurrent.futures.thread.__file__


def not_applicable(shim: ModuleType, needs: list[str] | None) -> str | None:
    """The shim's reason for not running a case needing ``needs``."""
    table = getattr(shim, "not_applicable", None) or {}
    for need in needs or []:
        reason = table.get(need)
        if reason:
            return f"{need}: {reason}"
    return None


async def until_idle() -> None:
    """Yields to the loop until nothing else is ready to run: the callbacks
    already queued (a task woken by a settled tool, its continuation) run
    first, and no other thread is busy or has work queued for it (a runtime
    that runs sync tools in worker threads may have a body about to start
    there, whose events reach the loop through ``call_soon_threadsafe``).
    While a thread is busy the loop's thread lets go of the GIL for 1 ms at
    a time, at most ``_BUSY_TURNS`` times: a thread blocked for good in a
    call the kit cannot see into does not hold the case up. On a loop
    without a readable ready queue, a fixed 100 turns."""
    loop = asyncio.get_running_loop()
    ready = getattr(loop, "_ready", None)
    if ready is None:
        for _ in range(100):
            await asyncio.sleep(0)
        return
    busy_turns = 0
    for _ in range(_IDLE_TURNS):
        await asyncio.sleep(0)
        if len(ready) > 0:
            continue
        if busy_turns >= _BUSY_TURNS or not threads_busy():
            return
        busy_turns += 1
        # blocks the loop's thread for a moment on purpose: a woken worker
        # takes the GIL only when it is released long enough for the OS to
        # run it
        time.sleep(_GIL_HANDOFF_S)  # noqa: ASYNC251


def threads_busy() -> bool:
    """Whether a thread other than this one runs Python code, or is woken
    with an item waiting in its queue: every other thread must be parked in
    a known wait (a ``ThreadPoolExecutor`` or ``queue.Queue`` worker with an
    empty queue, a ``threading`` wait, a selector) to be idle."""
    me = threading.get_ident()
    return any(ident != me and not _parked(frame) for ident, frame in sys._current_frames().items())


def _parked(frame: FrameType) -> bool:
    code = frame.f_code
    if code.co_filename == _EXECUTOR_FILE and code.co_name == "_worker":
        work = frame.f_locals.get("work_queue")
        return work is None or work.qsize() == 0
    if code.co_filename == threading.__file__ and code.co_name == "wait":
        outer = frame.f_back
        while outer is not None and outer.f_code.co_filename == threading.__file__:
            outer = outer.f_back
        if outer is not None and outer.f_code.co_filename == queue.__file__:
            waited = outer.f_locals.get("self")
            return not isinstance(waited, queue.Queue) or waited.qsize() == 0
        return True
    return code.co_filename == selectors.__file__ and code.co_name == "select"


class Escapes:
    """Counts what escapes while a case runs: exceptions the event loop
    reports (a task's exception never retrieved, a failing callback) and
    exceptions that end a thread."""

    def __init__(self) -> None:
        self.count = 0

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        def loop_handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            self.count += 1
            sys.stderr.write(
                f"toolgate python adapter: escaped: {context.get('message')}: "
                f"{context.get('exception')!r}\n"
            )

        loop.set_exception_handler(loop_handler)
        previous = threading.excepthook

        def thread_hook(args: threading.ExceptHookArgs) -> None:
            self.count += 1
            previous(args)

        threading.excepthook = thread_hook


ESCAPES = Escapes()

#: Turns left pending, held for the life of the process.
ABANDONED: list[asyncio.Task[Any]] = []

#: The kit's own timing tasks, held until they finish.
_TIMERS: set[asyncio.Task[None]] = set()


def keep(task: asyncio.Task[None]) -> None:
    _TIMERS.add(task)
    task.add_done_callback(_TIMERS.discard)


def _same_json(a: Any, b: Any) -> bool:
    try:
        return json.dumps(a) == json.dumps(b)
    except (TypeError, ValueError, RecursionError):
        return False


def _checker(spec: dict[str, Any] | None) -> Callable[[Any], str | None] | None:
    if not spec:
        return None
    key, equals, message = spec["key"], spec["equals"], spec["message"]

    def check(args: Any) -> str | None:
        if isinstance(args, dict) and key in args and _same_json(args[key], equals):
            return str(message)
        return None

    return check


def cpu_wait_ms() -> float | None:
    """How long this thread has waited for a CPU while ready to run, in ms;
    ``None`` where the system does not say. The turn's time is judged
    without these waits: they are the machine's load, not the runtime's
    work. This thread is the one that runs the event loop of the turn."""
    try:
        with open("/proc/thread-self/schedstat", encoding="latin-1") as stats:
            return schedstat_wait_ms(stats.read())
    except OSError:
        return None


def window_owed(
    wait_at_start: float | None, wait_now: float | None, settle_ms: float, extended: float
) -> float:
    """How much longer a window of ``settle_ms`` runs after ``extended`` ms
    were added already, for the waits for a CPU since the turn started: at
    most one more window in all, and 0 when less than a millisecond is owed
    or the waits are not known."""
    if wait_at_start is None or wait_now is None:
        return 0.0
    owed = min(wait_now - wait_at_start, settle_ms) - extended
    return owed if owed >= 1 else 0.0


def schedstat_wait_ms(line: str) -> float | None:
    """The wait in a line of Linux's ``/proc/<pid>/task/<tid>/schedstat``:
    ns on a CPU, ns waiting for one while runnable, timeslices."""
    fields = line.split()
    if len(fields) != 3 or not fields[1].isdigit():
        return None
    return int(fields[1]) / 1e6


def _peak_rss_bytes() -> int:
    # Linux reports ru_maxrss in KiB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


async def observe_case(shim: ModuleType, scenario: dict[str, Any], *, settle_ms: float) -> Any:
    """Runs ``scenario`` on ``shim`` and returns the observation."""
    loop = asyncio.get_running_loop()
    signal = AbortSignal()
    by_task = getattr(shim, "cancellation", "task") != "signal"
    holder: dict[str, asyncio.Task[TurnOutcome]] = {}
    ran: list[dict[str, Any]] = []
    started: set[int] = set()
    settled: set[int] = set()
    aborted_at: list[float] = []
    wait_at_abort: list[float | None] = []
    # the abort on the clock tool events carry ("at", time.monotonic())
    aborted_on: list[float] = []
    specs: list[dict[str, Any]] = scenario["tools"]
    timing: dict[str, Any] = scenario.get("abort") or {}

    def abort() -> None:
        if signal.aborted:
            return
        aborted_at.append(time.perf_counter())
        aborted_on.append(time.monotonic())
        wait_at_abort.append(cpu_wait_ms())
        signal.abort()
        task = holder.get("turn")
        if by_task and task is not None:
            task.cancel()

    def tool_index(call_id: str | None) -> int:
        call = next((c for c in scenario["turn"] if c["id"] == call_id), None)
        if call is None:
            return -1
        return next((i for i, t in enumerate(specs) if t["name"] == call["name"]), -1)

    def waiting() -> bool:
        return any(not is_pending(specs[i]["behaviour"]) and i not in settled for i in started)

    pending_check = [False]

    async def abort_when_idle(still: Callable[[], bool]) -> None:
        await until_idle()
        if still():
            abort()

    def maybe_abort_while_pending() -> None:
        named = timing.get("whilePending")
        if named is None or pending_check[0] or signal.aborted:
            return
        if tool_index(named) not in started or waiting():
            return
        pending_check[0] = True

        async def later() -> None:
            await until_idle()
            pending_check[0] = False
            if not waiting():
                abort()

        keep(loop.create_task(later()))

    # set when the turn is abandoned as pending: what its tools do after
    # that (a worker thread reaching a body after the kit's own abort) is no
    # part of the observed turn
    abandoned = [False]
    # each settle with when it happened: matched to its start once the turn
    # ended (a tool process's settle may reach the loop after its start)
    settles: list[tuple[int, str | None, str, float]] = []

    def handler(index: int) -> Callable[[ToolEvent], None]:
        def record(event: ToolEvent, aborted: bool, at: float) -> None:
            if abandoned[0]:
                return
            kind = event.get("event")
            if kind == "start":
                entry: dict[str, Any] = {"tool": index}
                if isinstance(event.get("callId"), str):
                    entry["callId"] = event["callId"]
                if aborted:
                    entry["afterAbort"] = True
                ran.append(entry)
                started.add(index)
                maybe_abort_while_pending()
            elif kind == "settle":
                settled.add(index)
                call_id = event.get("callId")
                outcome = "rejected" if event.get("outcome") == "rejected" else "fulfilled"
                settles.append((index, call_id if isinstance(call_id, str) else None, outcome, at))
                named = timing.get("afterSettled")
                if named is not None and tool_index(named) == index:
                    keep(loop.create_task(abort_when_idle(lambda: True)))
                maybe_abort_while_pending()

        def on_event(event: ToolEvent) -> None:
            # whether the abort came before the event is decided by when the
            # event happened (its "at", or now in the thread it happens in),
            # not when the loop gets to it: an event from a worker thread or
            # a tool process may arrive after an abort it preceded
            at = event.get("at")
            if isinstance(at, float):
                aborted = bool(aborted_on) and at > aborted_on[0]
            else:
                aborted = signal.aborted
                at = time.monotonic()
            happened = at
            on_loop(loop, lambda: record(event, aborted, happened))

        return on_event

    tools = []
    for index, spec in enumerate(specs):
        on_event = handler(index)
        tools.append(
            Tool(
                name=spec["name"],
                description=spec.get("description", ""),
                input_schema=spec["inputSchema"],
                check=_checker(spec.get("check")),
                execute=executor_for(spec["behaviour"], index=index, on_event=on_event),
                is_async=is_async(spec["behaviour"]),
                behaviour=spec["behaviour"],
                index=index,
                on_event=on_event,
            )
        )
    calls = [Call(c["id"], c["name"], materialize(c["arguments"])) for c in scenario["turn"]]
    turn = Turn(tools=tools, calls=calls, signal=signal)

    escaped_before = ESCAPES.count
    rss_before = _peak_rss_bytes()
    wait_at_start = cpu_wait_ms()
    start = time.perf_counter()
    task: asyncio.Task[TurnOutcome] = loop.create_task(shim.run_turn(turn))
    holder["turn"] = task
    if "before" in timing:
        abort()
    # the window counts the turn's time as the bounds do, without this
    # thread's waits for a CPU: the waits are owed back, up to one more
    # window (so that it stays well within the runner's --timeout)
    done, _ = await asyncio.wait({task}, timeout=settle_ms / 1000)
    extended = 0.0
    while not done:
        owed = window_owed(wait_at_start, cpu_wait_ms(), settle_ms, extended)
        if owed == 0:
            break
        extended += owed
        done, _ = await asyncio.wait({task}, timeout=owed / 1000)
    end = time.perf_counter()
    ended_on = time.monotonic()
    wait_at_end = cpu_wait_ms()
    # whether the signal had aborted when the turn raised: the task's end
    # came before this line, so an abort the kit made after it is not
    after_abort = bool(aborted_on) and aborted_on[0] <= ended_on
    pending = not done
    if pending:
        # abandoned: its signal aborts and its task is cancelled, so a
        # well-behaved runtime lets go of it before the next case; the task
        # is held, so that one that does not is never collected as
        # "destroyed but pending" (an escape of the kit's, not the runtime's)
        abandoned[0] = True
        signal.abort()
        task.cancel()
        ABANDONED.append(task)
    # stray failures of the turn surface within a few turns of the loop
    await until_idle()
    gc.collect()
    await until_idle()

    measured: dict[str, Any] = {
        "wallMs": _round(end - start),
        "peakMemoryGrowthBytes": max(0, _peak_rss_bytes() - rss_before),
        "deliveredBytes": 0,
    }
    if aborted_at and not pending:
        measured["abortToEndMs"] = _round(max(0.0, end - aborted_at[0]))
    if wait_at_start is not None and wait_at_end is not None:
        measured["cpuWaitMs"] = round(max(0.0, wait_at_end - wait_at_start), 3)
        waited_from_abort = wait_at_abort[0] if wait_at_abort else None
        if "abortToEndMs" in measured and waited_from_abort is not None:
            measured["abortToEndCpuWaitMs"] = round(max(0.0, wait_at_end - waited_from_abort), 3)
    observation: dict[str, Any] = {
        "registration": "ok",
        "turn": "completed",
        "results": [],
        "ran": ran,
        "uncaught": 0,
        "measured": measured,
    }
    if pending:
        observation["turn"] = "pending"
    else:
        try:
            outcome = task.result()
        except asyncio.CancelledError as error:
            observation["turn"] = (
                "aborted" if signal.aborted else {"rejected": _rejection(error, after_abort)}
            )
        except BaseException as error:  # noqa: BLE001 (the turn may raise anything)
            observation["turn"] = {"rejected": _rejection(error, after_abort)}
        else:
            _record_outcome(outcome, observation, measured)
    _record_settles(ran, settles, ended_on)
    observation["uncaught"] = ESCAPES.count - escaped_before
    # the case is observed: its tools that swallow their cancellation let
    # go now, so they cost no later case anything
    release_swallowing()
    await until_idle()
    return observation


def _record_outcome(outcome: Any, observation: dict[str, Any], measured: dict[str, Any]) -> None:
    if not isinstance(outcome, TurnOutcome):
        raise TypeError(f"run_turn returned {type(outcome).__name__}, not a TurnOutcome")
    if outcome.registration_error is not None:
        error = outcome.registration_error
        observation["registration"] = {
            "refused": {"name": str(error.name), "message": str(error.message)}
        }
        observation["turn"] = "notRun"
    for result in outcome.results:
        size = utf8_bytes(result.delivered)
        measured["deliveredBytes"] += size
        observation["results"].append(
            {
                "callId": result.call_id if isinstance(result.call_id, str) else None,
                "isError": result.is_error if isinstance(result.is_error, bool) else None,
                "delivered": encode_delivered(result.delivered),
                "bytes": size,
            }
        )
    if outcome.notes:
        observation["notes"] = [str(note) for note in outcome.notes]


def _record_settles(
    ran: list[dict[str, Any]], settles: list[tuple[int, str | None, str, float]], ended_on: float
) -> None:
    """Marks each start with how its body had settled when the turn ended
    (``pending``: not yet): the settle with its call id, else the first of
    its tool not yet matched, in the order they happened."""
    left = sorted((s for s in settles if s[3] <= ended_on), key=lambda s: s[3])
    for entry in ran:
        match = next(
            (s for s in left if s[0] == entry["tool"] and s[1] == entry.get("callId")), None
        ) or next((s for s in left if s[0] == entry["tool"]), None)
        if match is None:
            entry["settled"] = "pending"
        else:
            left.remove(match)
            entry["settled"] = match[2]


def carries_abort(error: BaseException) -> bool:
    """Whether ``error`` is the abort's own: a ``CancelledError``, or an
    exception whose cause or context chain reaches one."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, asyncio.CancelledError):
            return True
        current = current.__cause__ or current.__context__
    return False


def _rejection(error: BaseException, after_abort: bool) -> dict[str, Any]:
    return {
        **_named(error),
        "afterAbort": after_abort,
        "carriesAbort": carries_abort(error),
    }


def _named(error: BaseException) -> dict[str, str]:
    message: str
    try:
        message = str(error)
    except BaseException:  # noqa: BLE001 (an exception's text may raise)
        message = "<unprintable>"
    return {"name": type(error).__name__, "message": message}


def _round(seconds: float) -> float:
    return round(seconds * 1000, 3)
