"""toolgate runtime shim: toolgate-wall-python, a small agent-turn executor
written for this suite in ordinary Python (asyncio), which keeps the whole
whole boundary wall (seed 001: unknown tool -> error result; validate before run;
a raise becomes an error result; the loop survives). It is the suite's
positive control in Python: the runtime under test is this file itself, and
``mutants.json`` lists the deliberate breaks of it the suite must see. See
README.md.

One turn: register the tools (duplicate names refused), then start every
call of the turn at once. Each call is answered by exactly one tool_result
part, in call order:

    unknown tool             -> error result, nothing runs
    oversized arguments      -> error result, before the validator sees them
    schema or check refuses  -> error result, the body never runs
    aborted before it starts -> error result, the body never runs
    body returns / resolves  -> success result, the output as bounded text
    body raises (any kind)   -> error result with a readable message
    deadline passes          -> error result "timed out", the body is cancelled
    the turn's signal aborts -> error result "aborted" at once (results of
                                calls already answered are kept)
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from referencing import Registry

from toolgate_adapter import (
    AbortSignal,
    Call,
    RegistrationError,
    ResultSeen,
    Runtime,
    Tool,
    ToolContext,
    Turn,
    TurnOutcome,
)

# The runtime under test is this executor itself; its one dependency is
# jsonschema 4.26.0, the argument validator (requirements.txt).
runtime = Runtime(
    id="toolgate-wall-python",
    package="toolgate-runtime-toolgate-wall-python",
    version="1.0.0",
    path="its own run_turn (tools validated by jsonschema 4.26.0, "
    "Draft202012Validator, before they run)",
)

# The executor expresses every feature of the suite.
not_applicable: dict[str, str] = {}

# The turn's abort is its signal (`turn.signal`), the executor's own
# cancellation entry: an abort answers the calls still running and the turn
# completes, keeping every result. Python's task cancellation of `run_turn`
# is a hard stop instead (README.md).
cancellation = "signal"


@dataclass(frozen=True)
class Limits:
    """The wall's bounds. ``run_turn(turn, limits=...)`` may override any."""

    #: UTF-8 bytes of one tool_result part as JSON text (what the model receives).
    result_bytes: int = 65_536
    #: Nesting levels of the arguments (the root object is level 0).
    argument_depth: int = 64
    #: Values in the arguments: the root, every property and every item.
    argument_nodes: int = 100_000
    #: Code points of the arguments' strings and keys.
    argument_chars: int = 1_048_576
    #: Nesting levels of an output rendered as JSON text.
    output_depth: int = 64
    #: Containers of an output rendered as JSON text.
    output_nodes: int = 10_000
    #: How long a tool body may run before its call is answered "timed out".
    deadline_ms: float = 1_000
    #: Progress notes kept per turn, and the length of each.
    progress_notes: int = 100
    note_chars: int = 512


LIMITS = Limits()


class ToolRegistrationError(Exception):
    """A registration the executor refuses; ``name`` is the error's kind."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name
        self.message = message


# ---------------------------------------------------------------------------
# Registration and validation

#: Validators kept, by the schema's JSON text: checking a schema against the
#: 2020-12 meta-schema takes a few ms, and a process runs many turns.
_VALIDATORS_KEPT = 512
#: The schemas a ``$ref`` may name besides the tool's own (its ``$defs``):
#: none. jsonschema's default registry would fetch a remote ``$ref`` over
#: the network, blocking the event loop, while the call is validated.
_NO_REMOTE_SCHEMAS: Registry[Any] = Registry()
_validators: dict[str, Draft202012Validator] = {}


def validator_for(schema: Any) -> Draft202012Validator:
    """The validator of ``schema`` (draft 2020-12, no format assertions, no
    coercion: jsonschema only says yes or no, it never changes the
    arguments the tool receives; a remote ``$ref`` is unresolvable, and the
    call refused). Raises SchemaError for a bad schema."""
    key = json.dumps(schema, sort_keys=True, default=repr)
    found = _validators.get(key)
    if found is None:
        Draft202012Validator.check_schema(schema)
        found = Draft202012Validator(schema, registry=_NO_REMOTE_SCHEMAS)
        if len(_validators) >= _VALIDATORS_KEPT:
            del _validators[next(iter(_validators))]
        _validators[key] = found
    return found


@dataclass
class Entry:
    """One registered tool."""

    tool: Tool
    validator: Draft202012Validator
    index: int


def register_tools(tools: list[Tool]) -> dict[str, Entry]:
    """The tool table of one turn: name -> Entry. Raises ToolRegistrationError
    for a tool without a name or an execute function, a schema that is not
    a draft 2020-12 schema, or a name registered twice."""
    registry: dict[str, Entry] = {}
    for index, tool in enumerate(tools):
        if not isinstance(tool.name, str) or tool.name == "":
            raise ToolRegistrationError("InvalidToolError", f"tool {index} has no name")
        if not callable(tool.execute):
            raise ToolRegistrationError(
                "InvalidToolError", f"tool {quote(tool.name)} has no execute function"
            )
        if tool.name in registry:
            raise ToolRegistrationError(
                "DuplicateToolNameError",
                f"two tools are named {quote(tool.name)} (tools {registry[tool.name].index} "
                f"and {index}): the model could not tell which one it calls",
            )
        try:
            validator = validator_for(tool.input_schema)
        except (SchemaError, TypeError, ValueError) as error:
            raise ToolRegistrationError(
                "InvalidToolSchemaError",
                f"the input schema of tool {quote(tool.name)} is not a draft 2020-12 schema: "
                f"{message_of(error)}",
            ) from error
        registry[tool.name] = Entry(tool, validator, index)
    return registry


def arguments_problem(args: Any, limits: Limits = LIMITS) -> str | None:
    """What is wrong with ``args`` in size or shape before a validator walks
    them, or None. Iterative, and it stops at the first bound crossed: a
    10^5-deep value costs 64 levels, a 10 MB string one ``len``, a
    999,000-key dict one ``len``."""
    nodes = 1
    chars = 0
    stack: list[tuple[Any, int]] = [(args, 0)]
    too_many_chars = f"the arguments hold more than {limits.argument_chars} characters"
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            chars += len(value)
            if chars > limits.argument_chars:
                return too_many_chars
            continue
        if value is None or isinstance(value, (bool, int, float)):
            continue
        if not isinstance(value, (dict, list)):
            return f"the arguments hold a {type(value).__name__}, which JSON has not"
        if depth >= limits.argument_depth:
            return f"the arguments are nested deeper than {limits.argument_depth} levels"
        if nodes + len(value) > limits.argument_nodes:
            return f"the arguments hold more than {limits.argument_nodes} values"
        nodes += len(value)
        if isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
            continue
        for key, item in value.items():
            if not isinstance(key, str):
                return "the arguments hold a key that is not a string"
            chars += len(key)
            stack.append((item, depth + 1))
        if chars > limits.argument_chars:
            return too_many_chars
    return None


def refusal(entry: Entry, args: Any) -> str | None:
    """What the tool's schema or its extra check says against ``args``, or
    None. The first schema error only: the validator's work stays bounded."""
    try:
        error = next(iter(entry.validator.iter_errors(args)), None)
    except Exception as failure:  # noqa: BLE001 (a validator may raise anything)
        return f"the arguments could not be validated: {message_of(failure)}"
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path)
        return f"{'arguments/' + where if where else 'the arguments'}: {cut(error.message, 512)}"
    check = entry.tool.check
    if check is None:
        return None
    try:
        message = check(args)
    except Exception as failure:  # noqa: BLE001 (a check may raise anything)
        return f"the tool's check failed: {describe_raised(failure)}"
    if message is None:
        return None
    return safe_str(message) or "the tool refused the arguments"


# ---------------------------------------------------------------------------
# The turn

#: Exceptions a tool body raises that are not the tool's failure: the user's
#: interrupt goes on up (the turn raises it), as Python means it to.
_PASSED_ON = (KeyboardInterrupt,)

#: Tool bodies still running after their call was answered (timed out or
#: aborted, a body that swallows its cancellation): held until they end, so
#: that asyncio never collects a pending task (it would report it), and
#: never awaited.
_ABANDONED: set[asyncio.Task[None]] = set()


@dataclass
class _Running:
    """A call whose body runs."""

    task: asyncio.Task[None] | None
    signal: AbortSignal
    deadline: asyncio.TimerHandle | None = None


class _TurnRun:
    """The state of one turn: one answer per call, the first one wins."""

    def __init__(
        self, registry: dict[str, Entry], limits: Limits, calls: list[Call], notes: list[str]
    ) -> None:
        self.registry = registry
        self.limits = limits
        self.call_ids = [call.id for call in calls]
        self.notes = notes
        self.answers: list[ResultSeen | None] = [None] * len(calls)
        self.unanswered = len(calls)
        #: Per running call: its body's task (None while a sync body runs),
        #: its signal and its deadline.
        self.running: dict[int, _Running] = {}
        #: Set once the turn's signal aborted (or its task was cancelled).
        self.stopped = False
        self.answered: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        #: The tasks of the bodies this turn started.
        self.tasks: list[asyncio.Task[None]] = []

    def answer(self, index: int, result: ResultSeen) -> None:
        """Answers call ``index`` unless it already is; stops its deadline."""
        if self.answers[index] is not None:
            return
        self.answers[index] = result
        self.unanswered -= 1
        running = self.running.pop(index, None)
        if running is not None and running.deadline is not None:
            running.deadline.cancel()
        if self.unanswered == 0 and not self.answered.done():
            self.answered.set_result(None)

    def stop(self, index: int, message: str) -> None:
        """Answers a running call with ``message`` at once, then tells its body
        to stop (its signal aborts, its task is cancelled); never waits."""
        running = self.running.get(index)
        self.answer(index, failure(self.call_ids[index], message, self.limits))
        if running is None:
            return
        running.signal.abort()
        task = running.task
        if task is not None and not task.done():
            task.cancel()
            _ABANDONED.add(task)
            task.add_done_callback(_ABANDONED.discard)

    def abort(self) -> None:
        """The turn's signal aborted: no body starts from now on, and every
        running call is answered "aborted"."""
        self.stopped = True
        for index in list(self.running):
            self.stop(index, "aborted: the turn was aborted while the tool ran")

    def start(self, index: int, call: Call) -> None:
        """Checks call ``index`` and starts its body; answers it when it is
        refused or when the body finishes at once."""
        limits = self.limits
        call_id = call.id
        entry = self.registry.get(call.name) if isinstance(call.name, str) else None
        if entry is None:
            names = ", ".join(quote(name) for name in self.registry) or "(none)"
            self.answer(
                index,
                failure(
                    call_id, f"unknown tool {quote(call.name)}; the tools are: {names}", limits
                ),
            )
            return
        args = call.arguments
        oversized = arguments_problem(args, limits)
        if oversized is not None:
            message = f"invalid arguments for {quote(call.name)}: {oversized}"
            self.answer(index, failure(call_id, message, limits))
            return
        refused = refusal(entry, args)
        if refused is not None:
            message = f"invalid arguments for {quote(call.name)}: {refused}"
            self.answer(index, failure(call_id, message, limits))
            return
        if self.stopped:
            message = "aborted: the turn was aborted before the tool started"
            self.answer(index, failure(call_id, message, limits))
            return
        signal = AbortSignal()
        context = ToolContext(
            call_id=call_id, progress=self.progress_of(index, call_id), signal=signal
        )
        self.running[index] = _Running(None, signal)
        try:
            returned = entry.tool.execute(args, context)
        except _PASSED_ON:
            raise
        except BaseException as error:  # noqa: BLE001 (a tool may raise anything)
            self.raised(index, call_id, error)
            return
        if not inspect.isawaitable(returned):
            self.answer(index, success(call_id, returned, limits))
            return
        loop = asyncio.get_running_loop()
        task = loop.create_task(self.settle(index, call_id, returned))
        self.tasks.append(task)
        deadline = None
        if math.isfinite(limits.deadline_ms):
            seconds = limits.deadline_ms / 1000
            message = f"timed out: the tool did not settle within {limits.deadline_ms:g} ms"
            deadline = loop.call_later(seconds, self.stop, index, message)
        task.add_done_callback(lambda _task: _close_unstarted(returned))
        if self.answers[index] is None:
            self.running[index] = _Running(task, signal, deadline)

    async def settle(self, index: int, call_id: Any, awaitable: Awaitable[Any]) -> None:
        """Awaits a body in its own task and answers its call with what it
        gave; a late outcome (after the deadline or the abort) is dropped."""
        limits = self.limits
        try:
            value = await awaitable
        except asyncio.CancelledError:
            # cancelled by the wall (answered already), or by the body itself
            self.answer(index, failure(call_id, "tool error: the tool was cancelled", limits))
            raise
        except _PASSED_ON:
            raise
        except BaseException as error:  # noqa: BLE001 (a body may raise anything)
            self.raised(index, call_id, error)
            return
        self.answer(index, success(call_id, value, limits))

    def raised(self, index: int, call_id: Any, error: BaseException) -> None:
        """Answers call ``index``, whose body raised ``error``."""
        self.answer(index, failure(call_id, f"tool error: {describe_raised(error)}", self.limits))

    def progress_of(self, index: int, call_id: Any) -> Callable[[Any], None]:
        def progress(value: Any) -> None:
            if self.answers[index] is not None or len(self.notes) >= self.limits.progress_notes:
                return
            text, _ = render_json(value, depth=8, nodes=64, chars=1_024)
            self.notes.append(cut(f"progress for {call_id}: {text}", self.limits.note_chars))

        return progress


def _close_unstarted(awaitable: Awaitable[Any]) -> None:
    """Closes a body's coroutine whose task was cancelled before it ran (it
    never started): Python would warn that it was never awaited."""
    if inspect.iscoroutine(awaitable) and inspect.getcoroutinestate(awaitable) == "CORO_CREATED":
        awaitable.close()


async def run_turn(turn: Turn, *, limits: Limits = LIMITS) -> TurnOutcome:
    """Runs one model turn (SHIM.md): registers ``turn.tools``, starts every
    call of ``turn.calls`` at once, and returns one tool_result part per call,
    in call order. Never raises for a failure of a call or of a tool.

    ``turn.signal`` aborting answers the calls still running "aborted" and
    completes the turn. Cancelling the task running ``run_turn`` stops every
    call the same way, waits for none, and lets the CancelledError go on."""
    notes: list[str] = []
    try:
        registry = register_tools(turn.tools)
    except ToolRegistrationError as error:
        return TurnOutcome(
            results=[], registration_error=RegistrationError(error.name, error.message), notes=notes
        )
    state = _TurnRun(registry, limits, turn.calls, notes)
    turn.signal.add_listener(state.abort)
    try:
        for index, call in enumerate(turn.calls):
            state.start(index, call)
        if state.unanswered > 0:
            await state.answered
    except BaseException:
        # cancelled (or interrupted): stop every call, wait for none
        state.abort()
        raise
    return TurnOutcome(results=[a for a in state.answers if a is not None], notes=notes)


# ---------------------------------------------------------------------------
# Results


def success(call_id: Any, value: Any, limits: Limits) -> ResultSeen:
    text, was_cut = render_output(value, limits)
    return tool_result(call_id, text, was_cut, is_error=False, limits=limits)


def failure(call_id: Any, message: str, limits: Limits) -> ResultSeen:
    return tool_result(call_id, message, False, is_error=True, limits=limits)


def tool_result(
    call_id: Any, text: str, was_cut: bool, *, is_error: bool, limits: Limits
) -> ResultSeen:
    """The tool_result part the model receives, bounded to limits.result_bytes."""
    part: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": call_id,
        "content": "",
        "is_error": is_error,
    }
    budget = max(0, limits.result_bytes - json_bytes(part))
    part["content"] = fit(text, budget, was_cut)
    return ResultSeen(call_id=part["tool_use_id"], is_error=part.get("is_error"), delivered=part)


def render_output(value: Any, limits: Limits) -> tuple[str, bool]:
    """An output as the text the model reads: a string as itself, anything
    else as JSON text."""
    if isinstance(value, str):
        return value, False
    return render_json(
        value, depth=limits.output_depth, nodes=limits.output_nodes, chars=limits.result_bytes
    )


def cut_marker(budget: int) -> str:
    return f"\n[toolgate-wall-python: cut to fit {budget} bytes]"


def fit(text: str, budget: int, already_cut: bool) -> str:
    """``text`` cut so that its JSON string encoding takes at most ``budget``
    UTF-8 bytes (a marker says so)."""
    if not already_cut and len(text) <= budget and escaped_bytes(text) <= budget:
        return text
    marker = cut_marker(budget)
    keep = max(0, budget - escaped_bytes(marker))
    head = text[:keep]
    over = escaped_bytes(head) - keep
    while over > 0:
        head = head[: max(0, len(head) - (over + 5) // 6)]
        over = escaped_bytes(head) - keep
    return head + marker


def escaped_bytes(text: str) -> int:
    """UTF-8 bytes of ``text`` inside a JSON string (escapes counted)."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass")) - 2


def json_bytes(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else f"{text[:chars]}…"


# ---------------------------------------------------------------------------
# A bounded, non-recursive, cycle-safe JSON renderer

_CONTAINERS = (dict, list, tuple, set, frozenset)


@dataclass
class _Frame:
    value: Any
    is_dict: bool
    items: Iterator[Any]
    depth: int
    wrote: bool = False


def render_json(value: Any, *, depth: int, nodes: int, chars: int) -> tuple[str, bool]:
    """``value`` as JSON text, as ``json.dumps`` writes plain JSON (compact
    separators aside), and total: a cycle becomes ``"[circular]"``, NaN and
    infinities ``null``, an integer too long for ``str`` a marker string,
    bytes ``"[N bytes]"``, a set an array, a function ``"[function name]"``,
    any other object ``"[object Type: repr]"`` (a repr that raises is
    caught); nesting past ``depth`` becomes ``"[nested too deep]"``, and the
    rendering stops after ``nodes`` containers or once the text outgrows
    ``chars`` characters (``cut`` is then true)."""
    out: list[str] = []
    size = 0
    count = 0
    full = False
    ancestors: set[int] = set()
    stack: list[_Frame] = []

    def emit(text: str) -> None:
        nonlocal size, full
        out.append(text)
        size += len(text)
        if size > chars:
            full = True

    def open_value(v: Any, level: int) -> None:
        nonlocal count, full
        if isinstance(v, str):
            emit(quote_json(v[: max(0, chars - size) + 1]))
        elif v is None or isinstance(v, bool):
            emit("null" if v is None else ("true" if v else "false"))
        elif isinstance(v, int):
            emit(int_text(v))
        elif isinstance(v, float):
            emit(float.__repr__(v) if math.isfinite(v) else "null")
        elif isinstance(v, (bytes, bytearray, memoryview)):
            emit(quote_json(f"[{len(v)} bytes]"))
        elif isinstance(v, _CONTAINERS):
            if id(v) in ancestors:
                emit('"[circular]"')
                return
            if level >= depth:
                emit('"[nested too deep]"')
                return
            count += 1
            if count > nodes:
                emit('"[too many objects]"')
                full = True
                return
            is_dict = isinstance(v, dict)
            try:
                items: Iterator[Any] = iter(v.items()) if isinstance(v, dict) else iter(v)
            except Exception as error:  # noqa: BLE001 (a subclass may raise anything)
                emit(quote_json(f"[unreadable: {message_of(error)}]"))
                return
            ancestors.add(id(v))
            stack.append(_Frame(v, is_dict, items, level))
            emit("{" if is_dict else "[")
        elif callable(v):
            name = safe_str(getattr(v, "__qualname__", None)) or type(v).__name__
            emit(quote_json(f"[function {name}]"))
        else:
            emit(quote_json(f"[object {type(v).__qualname__}: {cut(safe_repr(v), 200)}]"))

    open_value(value, 0)
    while stack and not full:
        frame = stack[-1]
        try:
            item = next(frame.items)
        except StopIteration:
            stack.pop()
            ancestors.discard(id(frame.value))
            emit("}" if frame.is_dict else "]")
            continue
        except Exception as error:  # noqa: BLE001 (changed while read, a broken subclass)
            item = None
            emit(("," if frame.wrote else "") + quote_json(f"[unreadable: {message_of(error)}]"))
            frame.wrote = True
            frame.items = iter(())
            continue
        if frame.wrote:
            emit(",")
        frame.wrote = True
        if frame.is_dict:
            key, item = item
            emit(key_text(key) + ":")
        open_value(item, frame.depth + 1)
    return "".join(out), full


def quote_json(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def int_text(value: int) -> str:
    """An int as JSON digits, or a marker past Python's digit limit."""
    try:
        return int.__repr__(value)
    except ValueError:
        return quote_json(f"[an integer of {value.bit_length()} bits]")


def key_text(key: Any) -> str:
    """A dict key as a JSON string, as json.dumps converts it."""
    if isinstance(key, str):
        return quote_json(key)
    if key is None or isinstance(key, bool):
        return quote_json("null" if key is None else ("true" if key else "false"))
    if isinstance(key, int):
        return quote_json(int_text(key).strip('"'))
    if isinstance(key, float):
        return quote_json(float.__repr__(key) if math.isfinite(key) else "null")
    return quote_json(f"[key {cut(safe_repr(key), 200)}]")


# ---------------------------------------------------------------------------
# Messages


def describe_raised(error: BaseException) -> str:
    """A raised exception as a message the model can read. Total."""
    name = type(error).__name__
    message = safe_str(error)
    return f"{name}: {message}" if message else f"{name} (without a message)"


def message_of(error: BaseException) -> str:
    return safe_str(error) or type(error).__name__


def safe_str(value: Any) -> str:
    """``str(value)``, or "" when it raises (or recurses too deep)."""
    if value is None:
        return ""
    try:
        return value if isinstance(value, str) else str(value)
    except Exception:  # noqa: BLE001 (a __str__ may raise anything)
        return ""


def safe_repr(value: Any) -> str:
    try:
        return repr(value)
    except Exception as error:  # noqa: BLE001 (a __repr__ may raise anything)
        return f"its repr failed: {describe_raised(error)}"


def quote(name: Any) -> str:
    return quote_json(name) if isinstance(name, str) else safe_repr(name)
