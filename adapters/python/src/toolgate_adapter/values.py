"""A case's values as Python objects: plain JSON, and the hostile families
(an object with a ``"$"`` key) built as what is hostile in Python: a dict
that holds itself, 10^5 nested dicts (``json.dumps`` and ``repr`` raise
``RecursionError`` on them), a 10 MB string, objects whose property or
``__repr__`` raises, NaN, sets and bytes (``json.dumps`` refuses them).

The vocabulary is the boundary suite's (``corpus/schema/boundary-scenario
.schema.json``); ``adapters/node/boundary/behaviours.mjs`` builds the same
cases in JavaScript and ``contract/boundary/src/translate.rs`` decodes them
in Rust.
"""

from __future__ import annotations

from typing import Any, NoReturn


def tool_output_function() -> None:
    """The function a ``{"$": "function"}`` output is."""


class _ThrowingGetter:
    """An object with a plain attribute and a property that raises: what a
    runtime reading attributes (``vars``, Pydantic, ``getattr``) meets."""

    def __init__(self, message: str) -> None:
        self.ok = True
        self._message = message

    @property
    def broken(self) -> NoReturn:
        raise RuntimeError(self._message)


class _ThrowingRepr:
    """An object whose text form raises: JavaScript's throwing ``toJSON``,
    in Python's terms (``str``, ``repr`` and ``format`` are the hooks a
    runtime calls on an output it cannot serialize)."""

    def __init__(self, message: str) -> None:
        self.ok = True
        self._message = message

    def __repr__(self) -> str:
        raise RuntimeError(self._message)

    def __str__(self) -> str:
        raise RuntimeError(self._message)

    def __format__(self, _spec: str) -> str:
        raise RuntimeError(self._message)


class ThrownValue(Exception):  # noqa: N818 (it is a value thrown, not an error)
    """What a tool raises for ``{"value": J}``: Python cannot raise a bare
    value, so the nearest thing: an ``Exception`` carrying it, whose text is
    the value's ``repr`` (which may itself raise)."""

    def __init__(self, value: Any) -> None:
        super().__init__(value)
        self.value = value


def materialize(spec: Any) -> Any:
    """The Python value a case's value ``spec`` describes."""
    if isinstance(spec, list):
        return [materialize(item) for item in spec]
    if not isinstance(spec, dict):
        return spec
    if "$" not in spec:
        return {key: materialize(value) for key, value in spec.items()}
    family = spec["$"]
    if family == "literal":
        return spec.get("value")
    if family == "cyclic":
        loop: dict[str, Any] = {"name": "loop"}
        loop["self"] = loop
        return loop
    if family == "deep":
        # built bottom-up: no recursion, whatever the depth
        node: dict[str, Any] = {"leaf": True}
        for _ in range(int(spec["depth"])):
            node = {"next": node}
        return node
    if family == "wide":
        return {f"k{i}": i for i in range(int(spec["keys"]))}
    if family == "longString":
        return "x" * int(spec["length"])
    if family == "bigint":
        return int(spec["value"])
    if family == "undefined":
        # Python has one absent value
        return None
    if family == "function":
        return tool_output_function
    if family == "throwingGetter":
        return _ThrowingGetter(str(spec["message"]))
    if family == "throwingToJSON":
        return _ThrowingRepr(str(spec["message"]))
    if family == "number":
        return float(_NON_FINITE[spec["value"]])
    if family == "set":
        return set(materialize(spec.get("items", [])))
    if family == "bytes":
        # `fill` 128-255 makes bytes that are not UTF-8
        return bytes([int(spec.get("fill", 0))]) * int(spec["length"])
    raise ValueError(f"unknown value family {family!r}")


_NON_FINITE = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf", "-0": "-0.0"}


def thrown(spec: dict[str, Any]) -> BaseException:
    """The exception a case's thrown value ``E`` describes: ``{"error": m}``
    a ``RuntimeError``, ``{"string": s}`` a bare ``Exception(s)`` (the
    nearest Python has to throwing a string), ``{"value": J}`` a
    :class:`ThrownValue` carrying the value."""
    if "error" in spec:
        return RuntimeError(spec["error"])
    if "string" in spec:
        return Exception(spec["string"])
    if "value" in spec:
        return ThrownValue(materialize(spec["value"]))
    raise ValueError(f"unknown thrown value {spec!r}")
