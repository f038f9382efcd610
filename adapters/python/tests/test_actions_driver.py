"""The ``actions`` driver (``python -m toolgate_adapter --actions <module>``)
as the runner sees it: the hello, a case with someone else's change in the
middle, a module that does not load, and an implementation that raises."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import TESTS

from toolgate_adapter.actions import ScriptedPolicy, read_database

SRC = TESTS.parent / "src"
ACTIONS = TESTS.parent / "actions"
AGENT = ACTIONS / "agent.py"

CAMERA = {
    "id": "camera",
    "title": "Camera kit",
    "text": "- body and lens\n- charger",
    "available": 3,
    "revision": 0,
}
TASK = {
    "id": "reserve-camera",
    "query": "camera",
    "mode": "reserve",
    "quantity": 1,
    "allow_write": True,
    "max_tool_attempts": 8,
}


def act(name: str, **args: Any) -> str:
    return json.dumps({"kind": "tool", "name": name, "args": args})


def reserve(revision: int) -> str:
    return act(
        "reserve",
        item_id="camera",
        quantity=1,
        expected_revision=revision,
        idempotency_key="reserve-camera:camera:1",
    )


FINISH = json.dumps({"kind": "finish", "status": "reserved"})


def case(policy: list[Any], seq_id: str = "actions/t") -> dict[str, Any]:
    return {
        "id": seq_id,
        "suite": "actions",
        "scenario": {"items": [CAMERA], "runs": [{"task": TASK, "policy": policy}]},
    }


def adapter(module: Path, requests: list[Any]) -> tuple[list[dict[str, Any]], str, int]:
    """Runs the adapter on ``requests``: its replies, stderr and exit status."""
    text = "".join(json.dumps(r) + "\n" for r in requests)
    done = subprocess.run(
        [sys.executable, "-m", "toolgate_adapter", "--actions", str(module)],
        input=text.encode(),
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        check=False,
    )
    replies = [json.loads(line) for line in done.stdout.decode().splitlines()]
    return replies, done.stderr.decode(), done.returncode


def test_a_session_runs_a_case_with_an_external_change() -> None:
    policy = [
        act("search", query="camera"),
        act("stock", item_id="camera"),
        {"external": {"item_id": "camera", "available": 2}},
        reserve(0),
        act("stock", item_id="camera"),
        reserve(1),
        FINISH,
        {"external": {"item_id": "camera", "available": 9}},  # never reached
    ]
    replies, _, status = adapter(
        AGENT,
        [
            {"cmd": "start", "protocol": 1},
            {"cmd": "run", "seq": 1, "case": case(policy)},
            {"cmd": "run", "seq": 2, "case": {**case([]), "suite": "boundary"}},
            {"cmd": "stop"},
        ],
    )
    assert status == 0
    hello, answer, other = replies
    assert hello["protocol"] == 1
    assert hello["suites"] == ["actions"]
    assert hello["implementation"]["name"] == "agent (python actions)"
    (run,) = answer["observation"]["runs"]
    assert [s.get("tool") or s.get("code") or s.get("status") for s in run["steps"]] == [
        "search",
        "stock",
        "stale_revision",
        "stock",
        "reserve",
        "reserved",
    ]
    assert (run["status"], run["attempts"]) == ("reserved", 5)
    assert answer["observation"]["database"] == {
        "items": [{"id": "camera", "available": 1, "revision": 2}],
        "ledger": [
            {
                "id": 1,
                "idempotency_key": "reserve-camera:camera:1",
                "task_id": "reserve-camera",
                "item_id": "camera",
                "quantity": 1,
                "remaining": 1,
                "revision": 2,
            }
        ],
    }
    assert "skipped" in other


def test_a_module_that_does_not_load_answers_every_case_with_why(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import a_package_that_is_not_installed\n")
    missing = tmp_path / "empty.py"
    missing.write_text("def create_database(path, items):\n    pass\n")
    replies, stderr, status = adapter(
        broken, [{"cmd": "start", "protocol": 1}, {"cmd": "run", "seq": 1, "case": case([])}]
    )
    assert status == 0
    assert replies[0]["implementation"]["name"] == "unloadable-implementation"
    assert "a_package_that_is_not_installed" in replies[1]["error"]["message"]
    assert "could not load the actions implementation" in stderr
    replies, _, _ = adapter(missing, [{"cmd": "run", "seq": 1, "case": case([])}])
    assert "must define `Runner`" in replies[0]["error"]["message"]


RAISING = f"""
import sqlite3, sys
sys.path.insert(0, {str(ACTIONS)!r})
from agent import create_database, Runner as Base

class Runner(Base):
    def __init__(self, db_path, task, policy):
        if task["id"] == "cannot-start":
            raise RecursionError("maximum recursion depth exceeded")
        super().__init__(db_path, task, policy)

    def _reserve(self, args):
        raise sqlite3.IntegrityError("UNIQUE constraint failed: ledger.idempotency_key")
"""


def test_an_implementation_that_raises_is_judged_not_an_error(tmp_path: Path) -> None:
    module = tmp_path / "raising.py"
    module.write_text(RAISING)
    scenario = case([act("search", query="camera"), act("stock", item_id="camera"), reserve(0)])
    scenario["scenario"]["runs"].append(
        {"task": {**TASK, "id": "cannot-start"}, "policy": [FINISH]}
    )
    replies, _, status = adapter(module, [{"cmd": "run", "seq": 1, "case": scenario}])
    assert status == 0
    first, second = replies[0]["observation"]["runs"]
    assert first["steps"][-1] == {
        "outcome": "raised",
        "message": "IntegrityError: UNIQUE constraint failed: ledger.idempotency_key",
    }
    assert [s["outcome"] for s in first["steps"]] == ["ok", "ok", "raised"]
    assert (first["status"], first["attempts"]) == ("raised", 2)
    assert second == {
        "steps": [
            {"outcome": "raised", "message": "RecursionError: maximum recursion depth exceeded"}
        ],
        "status": "raised",
        "attempts": 0,
    }
    assert replies[0]["observation"]["database"]["ledger"] == []


def test_the_scripted_policy_applies_changes_when_it_reaches_them(tmp_path: Path) -> None:
    path = tmp_path / "db"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE items (id TEXT PRIMARY KEY, title TEXT, body TEXT,"
        " available INTEGER, revision INTEGER);"
        "CREATE TABLE ledger (id INTEGER PRIMARY KEY, idempotency_key TEXT, task_id TEXT,"
        " item_id TEXT, quantity INTEGER, remaining INTEGER, revision INTEGER);"
        "INSERT INTO items VALUES ('camera', 't', 'b', 3, 0);"
    )
    db.close()
    change = {"external": {"item_id": "camera", "available": 7}}
    policy = ScriptedPolicy(path, ["a", change, "b", change])
    assert policy() == "a"
    assert read_database(path)["items"] == [{"id": "camera", "available": 3, "revision": 0}]
    assert policy() == "b"
    assert read_database(path)["items"] == [{"id": "camera", "available": 7, "revision": 1}]
    assert policy() is None
    assert policy() is None
    assert read_database(path) == {
        "items": [{"id": "camera", "available": 7, "revision": 2}],
        "ledger": [],
    }
