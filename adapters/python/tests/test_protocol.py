"""The adapter process as the runner sees it: JSON lines in, one reply per
request out, nothing else on stdout, and a clear answer to everything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import SHIMS, TESTS

SRC = TESTS.parent / "src"
CASE = {
    "id": "t/works",
    "suite": "boundary",
    "scenario": {
        "tools": [{"name": "t", "inputSchema": {"type": "object"}, "behaviour": {"returns": 7}}],
        "turn": [{"id": "c1", "name": "t", "arguments": {}}],
    },
}


def check(shim: Path, requests: list[Any]) -> tuple[list[dict[str, Any]], str, int]:
    """Runs the adapter on ``requests`` (objects are sent as JSON, strings
    as they are): its replies, its stderr and its exit status."""
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in requests)
    done = subprocess.run(
        [sys.executable, "-m", "toolgate_adapter", "--shim", str(shim), "--settle-ms", "500"],
        input=text.encode(),
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        check=False,
    )
    replies = [json.loads(line) for line in done.stdout.decode().splitlines()]
    return replies, done.stderr.decode(), done.returncode


def test_a_session_answers_start_run_and_stop() -> None:
    replies, stderr, status = check(
        SHIMS / "direct",
        [{"cmd": "start", "protocol": 1}, {"cmd": "run", "seq": 1, "case": CASE}, {"cmd": "stop"}],
    )
    assert status == 0
    hello, answer = replies
    assert hello["protocol"] == 1
    assert hello["implementation"] == {
        "name": "toolgate-test-direct (direct)",
        "version": "0.0.0",
        "language": "python",
    }
    assert hello["suites"] == ["boundary"]
    assert answer["seq"] == 1
    assert answer["observation"]["results"][0]["delivered"] == 7
    # what the shim printed went to stderr
    assert "direct shim: 1 call(s)" in stderr


def test_garbage_gets_no_reply_and_unknown_requests_an_error() -> None:
    replies, stderr, status = check(
        SHIMS / "direct",
        [
            "not json",
            "[1, 2]",
            {"cmd": "run", "case": CASE},
            {"cmd": "dance", "seq": 4},
            {"cmd": "run", "seq": 5, "case": "no object"},
            {"cmd": "run", "seq": 6, "case": {**CASE, "suite": "core"}},
        ],
    )
    assert status == 0
    assert [r["seq"] for r in replies] == [4, 5, 6]
    assert replies[0]["error"]["message"] == 'unknown request "dance"'
    assert "error" in replies[1]
    assert "skipped" in replies[2]
    assert "a request that is not JSON" in stderr
    assert "without a valid seq" in stderr


def test_a_case_needing_what_the_runtime_cannot_express_is_not_applicable() -> None:
    case = {**CASE, "needs": ["duplicateNames"]}
    replies, _, _ = check(SHIMS / "direct", [{"cmd": "run", "seq": 1, "case": case}])
    assert replies == [
        {"seq": 1, "notApplicable": {"reason": "duplicateNames: the test shim keeps tools by name"}}
    ]


def test_a_scenario_the_kit_cannot_build_is_an_error_not_a_crash() -> None:
    broken = {**CASE, "scenario": {"tools": [{"name": "t"}], "turn": []}}
    replies, stderr, status = check(
        SHIMS / "direct",
        [{"cmd": "run", "seq": 1, "case": broken}, {"cmd": "run", "seq": 2, "case": CASE}],
    )
    assert status == 0
    assert replies[0]["error"]["message"].startswith("case t/works: ")
    assert "observation" in replies[1]
    assert "Traceback" in stderr


def test_a_shim_that_cannot_load_answers_every_case_with_why(tmp_path: Path) -> None:
    (tmp_path / "shim.py").write_text("import a_package_that_is_not_installed\n")
    replies, stderr, status = check(
        tmp_path, [{"cmd": "start", "protocol": 1}, {"cmd": "run", "seq": 1, "case": CASE}]
    )
    assert status == 0
    assert replies[0]["implementation"]["name"] == "unloadable-runtime"
    assert "a_package_that_is_not_installed" in replies[1]["error"]["message"]
    assert "could not load the runtime shim" in stderr
