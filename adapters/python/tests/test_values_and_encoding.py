"""The hostile values as Python builds them, and their encoding for the
observation: total, bounded, never recursing."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from toolgate_adapter import arguments_text, encode_delivered, materialize, utf8_bytes
from toolgate_adapter.encode import KEPT_DEPTH, KEPT_ENTRIES, KEPT_STRING


def check(spec: Any, encoded: Any) -> None:
    """The value ``spec`` describes encodes as ``encoded``, as JSON."""
    value = materialize(spec)
    assert encode_delivered(value) == encoded
    json.dumps(encode_delivered(value), allow_nan=False)


def test_plain_json_is_itself() -> None:
    check({"a": [1, 2.5, "x", None, True]}, {"a": [1, 2.5, "x", None, True]})


def test_a_cycle_is_marked_where_it_closes() -> None:
    check({"$": "cyclic"}, {"name": "loop", "self": {"$seen": True}})


def test_deep_values_are_cut_without_recursion() -> None:
    value = materialize({"$": "deep", "depth": 100_000})
    with pytest.raises(RecursionError):
        json.dumps(value)
    encoded = encode_delivered(value)
    depth = 0
    while isinstance(encoded, dict) and "next" in encoded:
        encoded = encoded["next"]
        depth += 1
    assert depth == KEPT_DEPTH
    assert encoded == {"$cut": "depth"}


def test_wide_values_are_cut_at_the_entry_bound() -> None:
    encoded = encode_delivered(materialize({"$": "wide", "keys": 10_000}))
    assert encoded["$cut"] == {"entries": 10_000}
    assert len(encoded) == KEPT_ENTRIES + 1
    assert encoded["k0"] == 0


def test_long_strings_are_cut_and_their_length_kept() -> None:
    check(
        {"$": "longString", "length": KEPT_STRING + 5},
        {"$string": "x" * KEPT_STRING, "length": KEPT_STRING + 5},
    )


def test_values_only_python_has() -> None:
    check({"$": "number", "value": "NaN"}, {"$number": "NaN"})
    check({"$": "number", "value": "-Infinity"}, {"$number": "-Infinity"})
    check({"$": "set", "items": ["a"]}, {"$set": ["a"]})
    check({"$": "bytes", "length": 3}, {"$bytes": 3})
    assert materialize({"$": "bytes", "length": 2}) == b"\x00\x00"
    # 255s: bytes that are not UTF-8
    high = materialize({"$": "bytes", "length": 2, "fill": 255})
    assert high == b"\xff\xff"
    with pytest.raises(UnicodeDecodeError):
        high.decode()
    check(
        {"$": "bigint", "value": "123456789012345678901234567890"},
        {"$bigint": "123456789012345678901234567890"},
    )
    check({"$": "bigint", "value": "12"}, 12)
    check({"$": "undefined"}, None)
    check({"$": "function"}, {"$function": "tool_output_function"})


def test_objects_whose_property_or_repr_raises() -> None:
    getter = materialize({"$": "throwingGetter", "message": "read refused"})
    with pytest.raises(RuntimeError, match="read refused"):
        _ = getter.broken
    assert encode_delivered(getter)["$object"] == "_ThrowingGetter"
    text_hook = materialize({"$": "throwingToJSON", "message": "no text"})
    with pytest.raises(RuntimeError, match="no text"):
        str(text_hook)
    assert encode_delivered(text_hook)["repr"] == "<unprintable: RuntimeError>"


def test_a_literal_keeps_its_dollar_key() -> None:
    check({"$": "literal", "value": {"$": "cyclic"}}, {"$": "cyclic"})


def test_lone_surrogates_never_reach_the_reply() -> None:
    assert encode_delivered("a\ud800b") == "a\ufffd\ufffd\ufffdb"


def test_bytes_count_the_whole_value() -> None:
    assert utf8_bytes("héllo") == 6
    assert utf8_bytes({"a": [1, "é"]}) == len(
        json.dumps({"a": [1, "é"]}, separators=(",", ":"), ensure_ascii=False).encode()
    )
    assert utf8_bytes(materialize({"$": "cyclic"})) > 0
    assert utf8_bytes(materialize({"$": "longString", "length": 10_000_000})) == 10_000_000


def test_arguments_text_is_compact_json_even_100000_deep() -> None:
    assert arguments_text({"path": "é", "n": [1, None]}) == '{"path":"é","n":[1,null]}'
    deep = materialize({"$": "deep", "depth": 100_000})
    text = arguments_text(deep)
    assert text.startswith('{"next":{"next":')
    assert text.endswith('{"leaf":true}' + "}" * 100_000)


def test_non_finite_numbers_are_never_bare_in_json() -> None:
    encoded = encode_delivered([math.nan, math.inf, 1e300])
    assert encoded == [{"$number": "NaN"}, {"$number": "Infinity"}, 1e300]
