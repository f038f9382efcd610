"""Tool bodies of the boundary suite, by behaviour, built the same way in the
adapter's process and in a runtime's tool process (an MCP server over
stdio). A body reports ``start``, ``progress`` and ``settle`` events, so
whoever runs it learns whether and when the tool ran.

``returns`` and ``throws`` are plain functions (a runtime may run them in a
worker thread: events are thread-safe on the kit's side); ``resolves``,
``rejects`` and ``pending`` are coroutine functions. ``pending`` with
``onAbort: "reject"`` ends when its task is cancelled (or the signal the
runtime passes aborts); with ``onAbort: "ignore"`` it swallows
``asyncio.CancelledError`` and goes on waiting, as a tool written with a
bare ``except BaseException`` does.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from .shim_api import ToolContext, ToolEvent
from .values import materialize, thrown

#: The behaviours that finish on their own, at once, without a coroutine.
_SYNC = ("returns", "throws")


def is_async(behaviour: dict[str, Any]) -> bool:
    """Whether the body of ``behaviour`` is a coroutine function."""
    if "progress" in behaviour:
        return is_async(behaviour["then"])
    return not any(key in behaviour for key in _SYNC)


def is_pending(behaviour: dict[str, Any]) -> bool:
    """Whether the body never settles on its own."""
    if "progress" in behaviour:
        return is_pending(behaviour["then"])
    return "pending" in behaviour


def executor_for(
    behaviour: dict[str, Any],
    *,
    index: int,
    on_event: Callable[[ToolEvent], None] | None = None,
) -> Callable[..., Any]:
    """The body of a tool behaving as ``behaviour`` says: ``execute(args,
    context=None)``, a coroutine function when :func:`is_async` says so.

    Its values are built now, before any turn is timed: what a case
    measures is the runtime's cost, not the building of a 10^6-key output.
    """
    emit = on_event or (lambda _event: None)
    final = behaviour
    progress: list[Any] = []
    while "progress" in final:
        progress.extend(final["progress"])
        final = final["then"]
    built = None
    for key in ("returns", "resolves"):
        if key in final:
            built = materialize(final[key])

    def event(name: str, context: ToolContext | None, **extra: Any) -> None:
        # "at": the system-wide monotonic clock (CLOCK_MONOTONIC on Linux,
        # the same in every process), so a start in a tool process is
        # placed before or after the abort exactly, however late its event
        # arrives over a pipe
        record: ToolEvent = {"event": name, "index": index, "at": time.monotonic()}
        if context is not None and context.call_id is not None:
            record["callId"] = context.call_id
        record.update(extra)
        emit(record)

    def begin(context: ToolContext | None) -> None:
        event("start", context)
        for value in progress:
            event("progress", context)
            if context is not None and context.progress is not None:
                context.progress(materialize(value))

    if not is_async(behaviour):

        def execute(_args: Any = None, context: ToolContext | None = None) -> Any:
            begin(context)
            if "returns" in final:
                event("settle", context, outcome="fulfilled")
                return built
            event("settle", context, outcome="rejected")
            raise thrown(final["throws"])

        return execute

    async def execute_async(_args: Any = None, context: ToolContext | None = None) -> Any:
        begin(context)
        if "resolves" in final:
            await asyncio.sleep(0)
            event("settle", context, outcome="fulfilled")
            return built
        if "rejects" in final:
            await asyncio.sleep(0)
            event("settle", context, outcome="rejected")
            raise thrown(final["rejects"])
        if "pending" in final:
            if final["pending"].get("onAbort") == "reject":
                try:
                    await _until_aborted(context)
                except asyncio.CancelledError:
                    event("settle", context, outcome="rejected")
                    raise
                event("settle", context, outcome="rejected")
                raise asyncio.CancelledError("the tool's signal aborted")
            await _forever_swallowing()
        raise ValueError(f"unknown behaviour {behaviour!r}")

    return execute_async


#: The futures pending bodies wait on, held for the life of the process:
#: a task waiting on a future nobody else holds would be collected and
#: reported "destroyed but pending", which no runtime did.
_HELD: list[asyncio.Future[None]] = []


def _held_future() -> asyncio.Future[None]:
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    _HELD.append(future)
    future.add_done_callback(_HELD.remove)
    return future


async def _until_aborted(context: ToolContext | None) -> None:
    """Waits until the task is cancelled (the ``CancelledError`` goes on
    up) or the signal the runtime passed aborts."""
    done = _held_future()
    signal = context.signal if context is not None else None
    if signal is not None:

        def release() -> None:
            if not done.done():
                done.set_result(None)

        signal.add_listener(release)
    await done


#: The current wait of each body that swallows its cancellation.
_SWALLOWING: set[asyncio.Future[None]] = set()


def release_swallowing() -> None:
    """Lets every body that swallows its cancellation go, with a
    ``CancelledError``. The kit calls it once a case's observation is
    taken: what such a body does to its runtime is the case's to see, and
    no later case's (under anyio, a swallowed cancellation is delivered
    again on every turn of the loop: left running, each such body would
    keep a core busy through every later case)."""
    for wait in list(_SWALLOWING):
        if not wait.done():
            wait.set_result(None)


async def _forever_swallowing() -> None:
    """Never returns: each cancellation is caught and the wait goes on,
    until :func:`release_swallowing`."""
    while True:
        wait = _held_future()
        _SWALLOWING.add(wait)
        try:
            await wait
        except asyncio.CancelledError:
            # the tool that does not let go: the task's cancel() is undone
            current = asyncio.current_task()
            if current is not None and hasattr(current, "uncancel"):
                current.uncancel()
            continue
        finally:
            _SWALLOWING.discard(wait)
        raise asyncio.CancelledError("toolgate: the case is over; the tool lets go")
