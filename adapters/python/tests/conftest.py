"""Shared paths of the kit's tests."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
SHIMS = TESTS / "shims"
