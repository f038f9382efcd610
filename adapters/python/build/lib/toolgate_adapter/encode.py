"""What a runtime delivers to the model, as JSON for the observation, and
the model's arguments as JSON text.

Most runtimes deliver strings or JSON-shaped dicts; some hand over live
values, which may be cyclic, 10^5 deep, hold NaN, sets, bytes or objects
whose ``repr`` raises, or be 10 MB long. The encoding is total and bounded:
it never raises, never recurses, and cuts what would make the reply line
huge, while :func:`utf8_bytes` still counts the whole value. The markers
are the Node adapter's (``adapters/node/boundary/encode-delivered.mjs``),
plus ``$set``, ``$bytes`` and ``$object`` for what only Python has.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

#: Longest string kept whole in an observation.
KEPT_STRING = 65_536
#: Deepest container kept in an observation.
KEPT_DEPTH = 64
#: Most entries of one container kept in an observation.
KEPT_ENTRIES = 4_096
#: Integers beyond this magnitude are marked ``$bigint`` (JSON readers
#: past 64 bits round them).
_INT_KEPT = 2**63


def _text(value: str) -> str:
    """``value`` with lone surrogates (which no UTF-8 JSON carries)
    replaced by U+FFFD."""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _safe(describe: Callable[[Any], str], value: Any) -> str:
    """``describe(value)``, or a placeholder when it raises."""
    try:
        return describe(value)
    except BaseException as error:  # noqa: BLE001 (a repr may raise anything)
        return f"<unprintable: {type(error).__name__}>"


def _scalar_bytes(value: Any) -> int | None:
    """JSON text bytes of a scalar, or None for a container."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass")) + 2
    if value is None:
        return 4
    if isinstance(value, bool):
        return 4 if value else 5
    if isinstance(value, int):
        if value.bit_length() < 4_000:
            return len(str(value))
        # past Python's 4,300-digit str limit: the digits, from the bits
        return value.bit_length() * 30_103 // 100_000 + 2
    if isinstance(value, float):
        return len(repr(value)) if math.isfinite(value) else 4
    return None


def _function_name(function: Any) -> str:
    return str(getattr(function, "__qualname__", type(function).__name__))


def utf8_bytes(value: Any) -> int:
    """The UTF-8 bytes of ``value`` as compact JSON text (a string as
    itself), each container counted once, without building the text."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))
    total = 0
    seen: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        size = _scalar_bytes(item)
        if size is not None:
            total += size
            continue
        if isinstance(item, (bytes, bytearray)):
            total += len(item) * 2 + 2
            continue
        if not isinstance(item, (dict, list, tuple, set, frozenset)):
            total += len(_safe(repr, item).encode("utf-8", "replace")) + 2
            continue
        if id(item) in seen:
            continue
        seen.add(id(item))
        total += 2 + max(0, len(item) - 1)
        if isinstance(item, dict):
            for key, entry in item.items():
                total += len(str(key).encode("utf-8", "surrogatepass")) + 3
                stack.append(entry)
        else:
            stack.extend(item)
    return total


def encode_delivered(value: Any) -> Any:
    """``value`` as JSON for the observation: containers met again (a cycle
    or a shared value) as ``{"$seen": true}``; NaN and infinities as
    ``{"$number": "NaN"}``; integers past 64 bits as ``{"$bigint": "…"}``;
    sets as ``{"$set": [...]}``; bytes as ``{"$bytes": n}``; functions as
    ``{"$function": name}``; any other object as ``{"$object": type,
    "repr": …}``; strings over KEPT_STRING code points and containers past
    KEPT_DEPTH or KEPT_ENTRIES cut with a marker."""
    root: list[Any] = [None]
    seen: set[int] = set()
    # work items: (value, depth, container, key) where the result goes
    stack: list[tuple[Any, int, Any, Any]] = [(value, 0, root, 0)]
    while stack:
        item, depth, into, at = stack.pop()
        into[at] = _encode_one(item, depth, seen, stack)
    return root[0]


def _encode_one(item: Any, depth: int, seen: set[int], stack: list[Any]) -> Any:
    if item is None or isinstance(item, bool):
        return item
    if isinstance(item, str):
        if len(item) > KEPT_STRING:
            return {"$string": _text(item[:KEPT_STRING]), "length": len(item)}
        return _text(item)
    if isinstance(item, int):
        if -_INT_KEPT < item < _INT_KEPT:
            return int(item)
        return {"$bigint": _safe(str, item)}
    if isinstance(item, float):
        if math.isfinite(item):
            return item
        return {"$number": "NaN" if math.isnan(item) else ("Infinity" if item > 0 else "-Infinity")}
    if isinstance(item, (bytes, bytearray)):
        return {"$bytes": len(item)}
    if callable(item) and not isinstance(item, (dict, list, tuple, set, frozenset)):
        return {"$function": _safe(_function_name, item)}
    if not isinstance(item, (dict, list, tuple, set, frozenset)):
        return {"$object": type(item).__qualname__, "repr": _text(_safe(repr, item))[:256]}
    if id(item) in seen:
        return {"$seen": True}
    if depth >= KEPT_DEPTH:
        return {"$cut": "depth"}
    seen.add(id(item))
    if isinstance(item, dict):
        out: dict[str, Any] = {}
        entries = list(item.items())
        if len(entries) > KEPT_ENTRIES:
            out["$cut"] = {"entries": len(entries)}
            entries = entries[:KEPT_ENTRIES]
        for key, entry in entries:
            name = _text(key) if isinstance(key, str) else _safe(str, key)
            # the key is placed now, so keys keep their order whatever
            # order the stack settles them in
            out[name] = None
            stack.append((entry, depth + 1, out, name))
        return out
    items = list(item)
    cut = len(items) > KEPT_ENTRIES
    kept: list[Any] = [None] * min(len(items), KEPT_ENTRIES)
    for position, entry in enumerate(items[:KEPT_ENTRIES]):
        stack.append((entry, depth + 1, kept, position))
    if cut:
        kept.append({"$cut": "entries", "length": len(items)})
    if isinstance(item, (set, frozenset)):
        return {"$set": kept}
    return kept


def arguments_text(value: Any) -> str:
    """The model's tool-call arguments as JSON text, as providers hand them
    to an SDK: compact, non-ASCII kept, as ``JSON.stringify`` writes it in
    the Node shims. ``json.dumps`` is used; only where it raises
    ``RecursionError`` (10^5 levels) an iterative encoder gives the same
    text, so the deep arguments reach the runtime instead of failing in the
    shim."""
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    except RecursionError:
        return _dumps_iteratively(value)


def _dumps_iteratively(root: Any) -> str:
    out: list[str] = []
    # work items: ("text", piece) or ("value", value)
    stack: list[tuple[str, Any]] = [("value", root)]
    while stack:
        kind, item = stack.pop()
        if kind == "text":
            out.append(item)
            continue
        if isinstance(item, dict):
            pieces: list[tuple[str, Any]] = [("text", "{")]
            for position, (key, entry) in enumerate(item.items()):
                if position > 0:
                    pieces.append(("text", ","))
                pieces.append(("text", json.dumps(str(key), ensure_ascii=False) + ":"))
                pieces.append(("value", entry))
            pieces.append(("text", "}"))
        elif isinstance(item, (list, tuple)):
            pieces = [("text", "[")]
            for position, entry in enumerate(item):
                if position > 0:
                    pieces.append(("text", ","))
                pieces.append(("value", entry))
            pieces.append(("text", "]"))
        else:
            out.append(json.dumps(item, ensure_ascii=False))
            continue
        stack.extend(reversed(pieces))
    return "".join(out)
