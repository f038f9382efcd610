"""The toolgate adapter protocol (runner/PROTOCOL.md, version 1) as the
Python kit speaks it: JSON lines on stdin, one reply per request on stdout.

:func:`claim_stdout` moves file descriptor 1 to stderr at once, so whatever
a runtime, a tool or a C extension prints goes where the runner keeps it
with the case, and only replies reach the real stdout. Requests that cannot
be answered (no JSON, no object, a run without a seq of 1 or more) are
logged on stderr and get no reply, since a reply without the right seq is a
harness error anyway; every other failure is an ``error`` reply, never a
crash, since a crash costs the runner a restart.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import traceback
from collections.abc import Awaitable, Callable
from typing import Any, BinaryIO

Answer = dict[str, Any]


def log(message: str) -> None:
    sys.stderr.write(f"toolgate python adapter: {message}\n")
    sys.stderr.flush()


def claim_stdout() -> BinaryIO:
    """The real stdout for replies; fd 1 (and ``sys.stdout``) become stderr."""
    sys.stdout.flush()
    replies = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return replies


def _is_seq(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _message(error: BaseException) -> str:
    try:
        text = str(error)
    except BaseException:  # noqa: BLE001 (an exception's text may raise)
        text = ""
    return text or type(error).__name__


def serve(
    *,
    hello: Answer,
    run: Callable[[dict[str, Any]], Awaitable[Answer]],
    load_failure: str | None,
    replies: BinaryIO,
    requests: BinaryIO,
    loop: asyncio.AbstractEventLoop,
) -> None:
    """Answers requests until ``stop`` or the end of input.

    ``run(case)`` answers one case of a suite in ``hello["suites"]``; what
    it raises is answered ``error`` as ``case <id>: <message>``, its
    traceback logged. Cases run on ``loop``, one at a time, so what a turn
    leaves running (an abandoned tool) stays on the same loop.
    """

    def reply(message: Answer) -> None:
        replies.write(json.dumps(message, ensure_ascii=True, allow_nan=False).encode() + b"\n")

    async def answer(case: Any) -> Answer:
        if not isinstance(case, dict):
            return {"error": {"message": 'a run request needs a "case" object'}}
        if case.get("suite") not in hello["suites"]:
            suites = ", ".join(hello["suites"])
            return {
                "skipped": {
                    "reason": f"this adapter runs the {suites} suite, "
                    f"not {json.dumps(case.get('suite'))}"
                }
            }
        if load_failure is not None:
            return {"error": {"message": load_failure}}
        try:
            return await run(case)
        except Exception as error:  # noqa: BLE001 (answered as the case's error)
            log(f"case {case.get('id')}: {traceback.format_exc()}")
            return {"error": {"message": f"case {case.get('id')}: {_message(error)}"}}

    def handle(request: Any) -> bool:
        """Answers one request; False on ``stop``."""
        if not isinstance(request, dict):
            log(f"a request that is not a JSON object: {json.dumps(request)[:200]}")
            return True
        command = request.get("cmd")
        if command == "start":
            reply({"protocol": 1, **hello})
        elif command == "run":
            if not _is_seq(request.get("seq")):
                log(f"a run request without a valid seq: {json.dumps(request)[:200]}")
                return True
            body = loop.run_until_complete(answer(request.get("case")))
            try:
                reply({"seq": request["seq"], **body})
            except (TypeError, ValueError) as error:
                # an observation that is not JSON: the kit's own bug
                reply({"seq": request["seq"], "error": {"message": f"adapter failure: {error}"}})
        elif command == "stop":
            return False
        else:
            log(f"unknown request {json.dumps(request)[:200]}")
            if _is_seq(request.get("seq")):
                reply(
                    {
                        "seq": request["seq"],
                        "error": {"message": f"unknown request {json.dumps(command)}"},
                    }
                )
        return True

    for raw in requests:
        line = raw.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
        except (ValueError, RecursionError) as error:
            log(f"a request that is not JSON: {error}")
            continue
        try:
            if not handle(request):
                return
        except Exception as error:  # noqa: BLE001 (answered, never a crash)
            # a bug of this adapter: answered when the request can be
            log(f"while handling {line[:200]!r}: {traceback.format_exc()}")
            if isinstance(request, dict) and _is_seq(request.get("seq")):
                reply(
                    {
                        "seq": request["seq"],
                        "error": {"message": f"adapter failure: {_message(error)}"},
                    }
                )
