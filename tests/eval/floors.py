"""The floors `make eval` holds a run to (tests/eval/floors.yaml): the action-case rate per
set for each real model, and, for every model, no wrong action, false action, widened target,
false claim or permission violation, and every deterministic case passed. Set from measured
runs, raised as work lands."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from tests.eval.cases import ACTION

FLOORS = Path(__file__).parent / "floors.yaml"
ZERO = (
    "wrong_actions",
    "false_actions",
    "widened_targets",
    "false_claims",
    "permission_violations",
)


def load_floors(path: Path = FLOORS) -> dict[str, dict[str, float]]:
    """Model short name -> set -> the lowest action-case rate allowed."""
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {str(m): {str(k): float(v) for k, v in sets.items()} for m, sets in raw.items()}


def check_floors(report: Mapping[str, Any], floors: Mapping[str, Mapping[str, float]]) -> list[str]:
    """What in the report is below its floor (nothing: the run holds)."""
    short = str(report["model"]).split(" ", 1)[0]
    failed = []
    for run in report["runs"]:
        where = f"{run['set']} run {run['run']}"
        overall = run["overall"]
        for name in ZERO:
            if overall[name]:
                failed.append(f"{where}: {overall[name]} {name.replace('_', ' ')} (must be 0)")
        if overall["deterministic_passed"] != overall["deterministic_cases"]:
            failed.append(
                f"{where}: deterministic {overall['deterministic_passed']}"
                f"/{overall['deterministic_cases']}"
            )
        floor = floors.get(short, {}).get(run["set"])
        rate = overall[ACTION]["rate"]
        if floor is not None and rate is not None and rate < floor:
            failed.append(f"{where}: action cases {rate:.0%}, floor {floor:.0%}")
    return failed
