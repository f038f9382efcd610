"""``python -m toolgate_adapter --shim <runtime folder> [--settle-ms 2000]``:
the toolgate adapter (runner/PROTOCOL.md) for the ``boundary``
suite on a Python agent runtime, through the shim in that folder
(adapters/python/runtimes/SHIM.md). A case needing what the runtime cannot
express (the shim's ``not_applicable``) is answered ``notApplicable``.

``python -m toolgate_adapter --actions <module.py>``: the same protocol for
the ``actions`` suite (adapters/python/actions/FORMAT.md) on a Python
implementation module of seed 002's contract (``actions.py`` drives it).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, BinaryIO

from .actions import identity as actions_identity
from .actions import load_implementation, observe_scenario
from .loading import load_module
from .observe import ESCAPES, not_applicable, observe_case
from .protocol import claim_stdout, log, serve


def load_shim(folder: Path) -> ModuleType:
    """Imports ``folder/shim.py`` (its folder importable, for its helpers)."""
    shim = load_module(
        folder / "shim.py", "toolgate_runtime_shim", ("runtime", "run_turn"), "SHIM.md"
    )
    if not callable(shim.run_turn):
        raise ImportError("shim.py's `run_turn` is not callable (SHIM.md)")
    return shim


def installed_version(package: str) -> str | None:
    """The version of ``package`` this interpreter imports: another venv
    with another version grades that version with the same shim (README,
    "Grade another version")."""
    try:
        return importlib.metadata.version(package)
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return None


def identity(shim: ModuleType | None) -> dict[str, Any]:
    if shim is None:
        return {"name": "unloadable-runtime", "version": "0.0.0", "language": "python"}
    runtime = shim.runtime
    found: dict[str, Any] = {
        "name": f"{runtime.package} ({runtime.id})",
        "version": installed_version(str(runtime.package)) or str(runtime.version),
        "language": "python",
    }
    if getattr(runtime, "homepage", None):
        found["homepage"] = runtime.homepage
    return found


def patience(case: dict[str, Any]) -> int:
    """How many times its window a case may wait (runner/PROTOCOL.md: the
    runner asks for more when it runs a case again whose first verdict
    rested on time)."""
    asked = case.get("patience")
    return asked if isinstance(asked, int) and not isinstance(asked, bool) and asked >= 1 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m toolgate_adapter",
        description="the toolgate adapter for a Python runtime shim (boundary) or actions module",
    )
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--shim", help="the runtime's folder (holding shim.py)")
    target.add_argument(
        "--actions",
        metavar="MODULE",
        help="an implementation module of the actions suite (adapters/python/actions)",
    )
    parser.add_argument(
        "--settle-ms",
        type=float,
        default=2000.0,
        help="how long a turn may take before it is called pending",
    )
    options = parser.parse_args(argv)
    if options.settle_ms <= 0:
        parser.error("--settle-ms is a positive number")
    replies = claim_stdout()
    if options.actions is not None:
        return serve_actions(Path(options.actions).resolve(), replies)

    shim: ModuleType | None = None
    load_failure: str | None = None
    folder = Path(options.shim).resolve()
    try:
        shim = load_shim(folder)
    except Exception as error:  # noqa: BLE001 (a shim may raise anything on import)
        load_failure = (
            f"could not load the runtime shim in {folder}: {type(error).__name__}: {error}"
        )
        log(load_failure)

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    ESCAPES.install(loop)

    async def run(case: dict[str, Any]) -> dict[str, Any]:
        assert shim is not None
        reason = not_applicable(shim, case.get("needs"))
        if reason is not None:
            return {"notApplicable": {"reason": reason}}
        observation = await observe_case(
            shim, case["scenario"], settle_ms=options.settle_ms * patience(case)
        )
        return {"observation": observation}

    serve(
        hello={"implementation": identity(shim), "suites": ["boundary"], "capabilities": []},
        run=run,
        load_failure=load_failure,
        replies=replies,
        requests=sys.stdin.buffer,
        loop=loop,
    )
    return 0


def serve_actions(path: Path, replies: BinaryIO) -> int:
    """Serves the ``actions`` suite on the implementation module at ``path``."""
    module: ModuleType | None = None
    load_failure: str | None = None
    try:
        module = load_implementation(path)
    except Exception as error:  # noqa: BLE001 (a module may raise anything on import)
        load_failure = (
            f"could not load the actions implementation {path}: {type(error).__name__}: {error}"
        )
        log(load_failure)

    async def run(case: dict[str, Any]) -> dict[str, Any]:
        assert module is not None
        return {"observation": observe_scenario(module, case["scenario"])}

    serve(
        hello={
            "implementation": actions_identity(module, path),
            "suites": ["actions"],
            "capabilities": [],
        },
        run=run,
        load_failure=load_failure,
        replies=replies,
        requests=sys.stdin.buffer,
        loop=asyncio.new_event_loop(),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
