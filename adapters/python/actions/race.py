"""Two runs reserving the last unit at the same time (ACT-CONC-01), on any
implementation of the actions contract: two tasks, two runners in two
threads, each with its own connection to one database; both observe
revision 0, wait for each other at a barrier, then propose their
``reserve`` at the same moment. Exactly one must win; the other finds the
revision it observed gone (``retryable``); the ledger holds one row.

The interleaving that breaks a wrong implementation is forced, not left
to the scheduler: each thread's first write after its ``reserve`` is held
(sqlite3's statement trace) until the other thread's first write comes
too, so both transactions have read before either writes. A correct
implementation's write lock keeps the other thread out of its
transaction, so its write never comes: after ``HOLD_S`` the held write
goes on. The hold decides nothing for a correct implementation (it only
costs ``HOLD_S`` a round); for a wrong one, both writes meet within it,
whatever the machine's load, unless a thread takes ``HOLD_S`` to read.

``python race.py <module.py> [--rounds N] [--hold S]`` runs it on the module (the
toolgate gate does this to the mutants of agent.py that list ACT-CONC-01)
and exits 1 with the first round that went wrong; ``test_agent.py`` runs
it on agent.py.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import sqlite3
import sys
import tempfile
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

#: Databases go to a memory file system when there is one: each commit's
#: fsync on a disk costs tens of milliseconds.
FAST = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None

#: How long a thread's first write waits for the other's (above): far more
#: than two reads take, far less than any busy timeout.
HOLD_S = 0.5

#: The statements that write.
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


class _WritesMeet:
    """The hold above: ``sqlite3.connect`` replaced, while a race runs, by
    one whose connections made in a race thread trace their statements."""

    def __init__(self, hold: float) -> None:
        self.hold = hold
        self.meeting = threading.Barrier(2, timeout=hold or None)
        self.local = threading.local()
        self.connect = sqlite3.connect

    def arm(self) -> None:
        """The calling thread's next write is held (with a hold of 0, none
        is: the scheduler decides the interleaving)."""
        self.local.armed = self.hold > 0

    def _trace(self, statement: str) -> None:
        if getattr(self.local, "armed", False) and statement.lstrip().upper().startswith(_WRITES):
            self.local.armed = False
            # broken: the other thread's write did not come, a lock holds it
            with contextlib.suppress(threading.BrokenBarrierError):
                self.meeting.wait()

    def _connect(self, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        connection: sqlite3.Connection = self.connect(*args, **kwargs)
        if getattr(self.local, "racing", False):
            connection.set_trace_callback(self._trace)
        return connection

    def __enter__(self) -> _WritesMeet:
        sqlite3.connect = self._connect  # type: ignore[assignment]
        return self

    def __exit__(self, *_: object) -> None:
        sqlite3.connect = self.connect


def _text(**action: Any) -> str:
    return json.dumps(action)


def race(
    path: Path, impl: ModuleType, hold: float = HOLD_S
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One race on a fresh database at ``path``, each thread's first write
    held at most ``hold`` seconds for the other's: each run's observation
    and the database afterwards."""
    camera = {"id": "camera", "title": "Camera kit", "text": "body", "available": 1, "revision": 0}
    impl.create_database(path, [camera])
    barrier = threading.Barrier(2, timeout=30)
    results: list[dict[str, Any]] = [{}, {}]
    writes = _WritesMeet(hold)

    def run(slot: int) -> None:
        writes.local.racing = True
        task_id = f"task-{slot}"
        texts = [
            _text(kind="tool", name="search", args={"query": "camera"}),
            _text(kind="tool", name="stock", args={"item_id": "camera"}),
        ]
        runner: Any = None

        def policy() -> str | None:
            if texts:
                return texts.pop(0)
            if len(runner.steps) == 2:
                barrier.wait()
                writes.arm()
                args = {
                    "item_id": "camera",
                    "quantity": 1,
                    "expected_revision": 0,
                    "idempotency_key": f"{task_id}:camera:1",
                }
                return _text(kind="tool", name="reserve", args=args)
            outcome = runner.steps[-1]["outcome"]
            status = {"ok": "reserved", "retryable": "retry_later"}.get(outcome, "insufficient")
            return _text(kind="finish", status=status)

        task = {
            "id": task_id,
            "query": "camera",
            "mode": "reserve",
            "quantity": 1,
            "allow_write": True,
            "max_tool_attempts": 8,
        }
        runner = impl.Runner(path, task, policy)
        try:
            results[slot] = runner.run()
        except Exception as error:  # noqa: BLE001 (reported as the round's failure)
            results[slot] = {"steps": [], "raised": f"{type(error).__name__}: {error}"}

    threads = [threading.Thread(target=run, args=(slot,)) for slot in (0, 1)]
    with writes:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    db = sqlite3.connect(path)
    try:
        available, revision = db.execute("SELECT available, revision FROM items").fetchone()
        rows = db.execute("SELECT COUNT(*) FROM ledger").fetchone()[0]
    finally:
        db.close()
    return results, {"available": available, "revision": revision, "ledger": rows}


def race_is_won_once(impl: ModuleType, times: int, hold: float = HOLD_S) -> str | None:
    """None when each of ``times`` races has exactly one winner and one
    ``retryable`` loser, else what went wrong first."""
    for _ in range(times):
        with tempfile.TemporaryDirectory(dir=FAST) as folder:
            results, database = race(Path(folder) / "db", impl, hold)
        reserves = sorted(r["steps"][2]["outcome"] for r in results if len(r["steps"]) > 2)
        statuses = sorted(r.get("status", "raised") for r in results)
        # the loser's transaction runs after the winner's commit and finds
        # the revision it observed gone
        if (
            reserves != ["ok", "retryable"]
            or statuses != ["reserved", "retry_later"]
            or database != {"available": 0, "revision": 1, "ledger": 1}
        ):
            return f"{results} {database}"
    return None


def load(path: Path) -> ModuleType:
    """The implementation module at ``path``."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("module", type=Path, help="the implementation module (agent.py)")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument(
        "--hold",
        type=float,
        default=HOLD_S,
        help="seconds a thread's first write waits for the other's (0: no hold, "
        "the scheduler decides the interleaving)",
    )
    options = parser.parse_args()
    failure = race_is_won_once(load(options.module), options.rounds, options.hold)
    if failure is not None:
        print(f"ACT-CONC-01: a race for the last unit went wrong: {failure}")
        return 1
    print(f"ACT-CONC-01: {options.rounds} races, each won exactly once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
