"""Each mutant of mutants.json is a real change of behaviour: applied to a
copy of agent.py, at least one probe of test_agent.py (a structure case, a
Python-value case, a scenario, or the race for the last unit) observes
something other than agent.py does. A mutant no probe tells apart is either
harmless or a hole in the tests; both need a look."""

from __future__ import annotations

import functools
import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import agent
import pytest
import test_agent as probes
from race import race_is_won_once

HERE = Path(__file__).resolve().parent
SOURCE = (HERE / "agent.py").read_text(encoding="utf-8")
MUTANTS: list[dict[str, Any]] = json.loads((HERE / "mutants.json").read_text(encoding="utf-8"))
REQUIREMENTS = {
    *(f"ACT-JSON-0{n}" for n in range(1, 5)),
    *(f"ACT-SHAPE-0{n}" for n in range(1, 4)),
    *(f"ACT-TYPE-0{n}" for n in range(1, 5)),
    *(f"ACT-AUTH-0{n}" for n in range(1, 8)),
    "ACT-BUDGET-01",
    *(f"ACT-EFFECT-0{n}" for n in range(1, 5)),
    "ACT-TOOL-01",
    "ACT-DATA-01",
    "ACT-STATUS-01",
    "ACT-CONC-01",
}


def behaviour(impl: ModuleType) -> list[tuple[str, Any]]:
    """What every single-threaded probe observes on ``impl``."""
    seen: list[tuple[str, Any]] = []
    for what, text, _ in probes.STRUCTURE:
        seen.append((f"structure: {what}", probes.check(impl, text)))
    for what, action, _ in probes.OBJECTS:
        seen.append((f"python value: {what}", probes.check_object(impl, action)))
    for scenario in probes.SCENARIOS:
        try:
            observation: Any = scenario(impl)
        except Exception as error:  # noqa: BLE001 (a mutant may raise anything)
            observation = ("raised", type(error).__name__)
        seen.append((f"scenario: {scenario.__name__}", observation))
    return seen


@functools.cache
def reference() -> list[tuple[str, Any]]:
    return behaviour(agent)


def load(name: str, source: str, folder: Path) -> ModuleType:
    stem = "agent_" + re.sub(r"\W", "_", name)
    path = folder / f"{stem}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_mutants_are_well_formed() -> None:
    assert len(MUTANTS) >= 14
    names = [mutant["name"] for mutant in MUTANTS]
    assert len(set(names)) == len(names)
    for mutant in MUTANTS:
        assert set(mutant) == {"name", "description", "find", "replace", "requirements"}
        assert SOURCE.count(mutant["find"]) == 1, mutant["name"]
        assert mutant["find"] != mutant["replace"]
        assert mutant["requirements"], mutant["name"]
        assert set(mutant["requirements"]) <= REQUIREMENTS, mutant["name"]


@pytest.mark.parametrize("mutant", MUTANTS, ids=[mutant["name"] for mutant in MUTANTS])
def test_each_mutant_changes_what_the_probes_see(mutant: dict[str, Any], tmp_path: Path) -> None:
    assert SOURCE.count(mutant["find"]) == 1
    module = load(mutant["name"], SOURCE.replace(mutant["find"], mutant["replace"]), tmp_path)
    differences = [
        what
        for (what, expected), (_, seen) in zip(reference(), behaviour(module), strict=True)
        if expected != seen
    ]
    if not differences:
        # only a race tells a deferred transaction from an immediate one
        failure = race_is_won_once(module, 100)
        differences = [f"race: {failure}"] if failure else []
    assert differences, f"no probe tells {mutant['name']} from agent.py"
