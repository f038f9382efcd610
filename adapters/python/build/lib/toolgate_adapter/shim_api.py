"""The types a runtime shim sees and returns (adapters/python/runtimes/SHIM.md).

A shim module exports ``runtime`` (a :class:`Runtime`), optionally
``not_applicable`` (capability name -> reason) and ``cancellation``
(``"task"`` or ``"signal"``), and ``async def run_turn(turn: Turn) ->
TurnOutcome``. Everything here is plain data, so a shim's tests can build a
:class:`Turn` by hand.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

#: What a tool reports to the kit: ``{"event": "start" | "progress" |
#: "settle", "index": i, "callId": ...}``, JSON-safe so that a tool process
#: can send it over a pipe.
ToolEvent = dict[str, Any]


@dataclass(frozen=True)
class Runtime:
    """Who is under test."""

    #: The folder name under ``adapters/python/runtimes``.
    id: str
    #: The PyPI distribution under test.
    package: str
    #: Its exact installed version.
    version: str
    #: The execution path the shim drives, in a few words.
    path: str
    homepage: str | None = None


class AbortSignal:
    """The turn's abort signal: set once, from the event loop's thread.

    ``add_listener`` callbacks run on that thread when the signal aborts (at
    once when it already has); ``wait()`` resolves then.
    """

    def __init__(self) -> None:
        self._aborted = False
        self._listeners: list[Callable[[], None]] = []
        self._event: asyncio.Event | None = None

    @property
    def aborted(self) -> bool:
        return self._aborted

    def add_listener(self, callback: Callable[[], None]) -> None:
        if self._aborted:
            callback()
        else:
            self._listeners.append(callback)

    async def wait(self) -> None:
        if self._aborted:
            return
        if self._event is None:
            self._event = asyncio.Event()
        await self._event.wait()

    def abort(self) -> None:
        """Aborts (once); the kit calls this, a shim's test may."""
        if self._aborted:
            return
        self._aborted = True
        if self._event is not None:
            self._event.set()
        listeners, self._listeners = self._listeners, []
        for listener in listeners:
            listener()


@dataclass
class ToolContext:
    """What the runtime gives a tool body, as far as it gives anything."""

    call_id: str | None = None
    progress: Callable[[Any], None] | None = None
    signal: AbortSignal | None = None


#: A tool body: ``execute(args, context)``; a coroutine function when the
#: tool's ``is_async`` is true.
Execute = Callable[..., Any]


@dataclass
class Tool:
    """One tool of the case, to register on the runtime."""

    name: str
    description: str
    #: The arguments' JSON Schema (draft 2020-12 subset).
    input_schema: dict[str, Any]
    #: An extra check beside the schema: a message when it refuses.
    check: Callable[[Any], str | None] | None
    execute: Execute
    #: Whether ``execute`` is a coroutine function.
    is_async: bool
    #: The case's description of the body (JSON), for a tool process.
    behaviour: dict[str, Any]
    #: The tool's position in the case's tools.
    index: int
    #: Reports an event of this tool built in another process; thread-safe.
    on_event: Callable[[ToolEvent], None] = field(default=lambda _event: None)

    async def call(self, args: Any, context: ToolContext | None = None) -> Any:
        """Runs the body on the calling task, awaiting it when it is async:
        for a shim whose runtime takes one async callable for every tool."""
        if self.is_async:
            awaitable: Awaitable[Any] = self.execute(args, context)
            return await awaitable
        return self.execute(args, context)


@dataclass
class Call:
    """One tool call of the model's turn."""

    id: str
    name: str
    #: The parsed JSON the model produced (it may be huge).
    arguments: Any


@dataclass
class Turn:
    """What a shim hands to its runtime."""

    tools: list[Tool]
    calls: list[Call]
    signal: AbortSignal = field(default_factory=AbortSignal)


@dataclass
class ResultSeen:
    """One tool result, as the model receives it."""

    #: The call id it is linked to, as the model sees it (None: none).
    call_id: str | None
    #: The error flag the model sees (None: the runtime has none).
    is_error: bool | None
    #: The result exactly as it goes to the model, as Python data.
    delivered: Any


@dataclass
class RegistrationError:
    """The runtime refused the tools (a duplicate name): the turn is not run."""

    name: str
    message: str


@dataclass
class TurnOutcome:
    """What the runtime sends back to the model after the turn."""

    results: list[ResultSeen] = field(default_factory=list)
    registration_error: RegistrationError | None = None
    #: What the runtime reported on the side: kept for people, not judged.
    notes: list[str] = field(default_factory=list)


def on_loop(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    """Runs ``callback`` on ``loop``'s thread: now when already there (so an
    event is recorded at the moment it happens), else handed over."""
    if loop.is_closed():
        return
    try:
        running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        callback()
    else:
        loop.call_soon_threadsafe(callback)
