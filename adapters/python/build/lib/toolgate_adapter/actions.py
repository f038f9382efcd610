"""The ``actions`` suite's driver (adapters/python/actions/FORMAT.md): runs
one case's scenario on a Python implementation module of seed 002's
contract and answers the suite's observation.

The implementation module exports ``create_database(path, items)`` and
``Runner(db_path, task, policy)`` with ``.run()`` (the interface is in
adapters/python/actions/README.md). For each case the driver makes a fresh
database in a temporary folder, plays each run's scripted policy (the raw
action texts in order; an ``external`` entry is a change made by someone
else, applied with plain SQL when the policy reaches it), and reads the
effects itself with the two SELECTs of FORMAT.md, never trusting what the
implementation says it did.

An implementation that raises out of ``run()`` is not a harness error: the
run is recorded with the steps it had (when the runner exposes ``steps``)
and a last step ``{"outcome": "raised", ...}`` of status ``raised``, which
the judge counts as the implementation's failure.
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from .loading import load_module

#: How long the harness waits for an implementation's write lock.
_BUSY_TIMEOUT_S = 30.0


def load_implementation(path: Path) -> ModuleType:
    """Imports the implementation module at ``path`` (its folder importable,
    for its helpers)."""
    module = load_module(
        path,
        "toolgate_actions_implementation",
        ("create_database", "Runner"),
        "adapters/python/actions/README.md",
    )
    for name in ("create_database", "Runner"):
        if not callable(getattr(module, name)):
            raise ImportError(f"{path.name}'s `{name}` is not callable")
    return module


def identity(module: ModuleType | None, path: Path) -> dict[str, Any]:
    """The hello's ``implementation``: the module's ``IMPLEMENTATION`` dict
    (``name``, ``version``, optional ``homepage``) when it has one."""
    found: dict[str, Any] = {
        "name": f"{path.stem} (python actions)" if module else "unloadable-implementation",
        "version": "0.0.0",
        "language": "python",
    }
    declared = getattr(module, "IMPLEMENTATION", None)
    if isinstance(declared, dict):
        for key in ("name", "version", "homepage"):
            if isinstance(declared.get(key), str):
                found[key] = declared[key]
    return found


class ScriptedPolicy:
    """A run's ``policy`` entries as the zero-argument callable a Runner
    asks: each call applies the ``external`` entries it reaches, then
    returns the next action text; None once none is left."""

    def __init__(self, db_path: Path, entries: list[Any]) -> None:
        self.db_path = db_path
        self.entries = list(entries)
        self.next = 0

    def __call__(self) -> str | None:
        while self.next < len(self.entries):
            entry = self.entries[self.next]
            self.next += 1
            if isinstance(entry, str):
                return entry
            change = entry["external"]
            set_available(self.db_path, change["item_id"], change["available"])
        return None


def set_available(db_path: Path, item_id: str, available: int) -> None:
    """Someone else's change: ``available`` set, ``revision`` up by one."""
    db = sqlite3.connect(db_path, timeout=_BUSY_TIMEOUT_S)
    try:
        with db:
            db.execute(
                "UPDATE items SET available = ?, revision = revision + 1 WHERE id = ?",
                (available, item_id),
            )
    finally:
        db.close()


def read_database(db_path: Path) -> dict[str, Any]:
    """The observation's ``database``, read with plain SQL."""
    db = sqlite3.connect(db_path, timeout=_BUSY_TIMEOUT_S)
    try:
        items = [
            {"id": item_id, "available": available, "revision": revision}
            for item_id, available, revision in db.execute(
                "SELECT id, available, revision FROM items ORDER BY id"
            ).fetchall()
        ]
        ledger = [
            dict(
                zip(
                    (
                        "id",
                        "idempotency_key",
                        "task_id",
                        "item_id",
                        "quantity",
                        "remaining",
                        "revision",
                    ),
                    row,
                    strict=True,
                )
            )
            for row in db.execute(
                "SELECT id, idempotency_key, task_id, item_id, quantity, remaining, revision"
                " FROM ledger ORDER BY id"
            ).fetchall()
        ]
    finally:
        db.close()
    return {"items": items, "ledger": ledger}


def _raised(error: BaseException) -> dict[str, Any]:
    try:
        text = str(error)
    except Exception:  # noqa: BLE001 (an exception's text may raise)
        text = ""
    return {"outcome": "raised", "message": f"{type(error).__name__}: {text}"[:2000]}


def run_one(impl: ModuleType, db_path: Path, task: dict[str, Any], entries: list[Any]) -> Any:
    """One run of the scenario; what the implementation raises becomes a
    ``raised`` step after the steps it had."""
    runner: Any = None
    try:
        runner = impl.Runner(str(db_path), task, ScriptedPolicy(db_path, entries))
        result = runner.run()
        if not isinstance(result, dict):
            raise TypeError(f"run() returned {type(result).__name__}, not a dict")
        return result
    except Exception as error:  # noqa: BLE001 (an implementation's bug, judged as a failure)
        so_far = getattr(runner, "steps", None)
        steps = list(so_far) if isinstance(so_far, list) else []
        attempts = getattr(runner, "attempts", 0)
        return {
            "steps": [*steps, _raised(error)],
            "status": "raised",
            "attempts": attempts if type(attempts) is int else 0,
        }


def observe_scenario(
    impl: ModuleType, scenario: dict[str, Any], directory: str | None = None
) -> dict[str, Any]:
    """The observation of one scenario on ``impl``, in a fresh database that
    is removed afterwards (in a new folder under ``directory``, by default
    the system's temporary folder)."""
    with tempfile.TemporaryDirectory(prefix="toolgate-actions-", dir=directory) as folder:
        db_path = Path(folder) / "inventory.sqlite3"
        impl.create_database(str(db_path), scenario["items"])
        runs = [run_one(impl, db_path, run["task"], run["policy"]) for run in scenario["runs"]]
        return {"runs": runs, "database": read_database(db_path)}
