"""bench/turns.py's summary, on answers shaped as the app writes them: the first model turn
apart, fast-path turns left out, quantiles and per-step medians from the steps' own figures."""

from __future__ import annotations

from typing import Any

from bench.turns import STEP_PARTS, TURN_PARTS, model_path_cases, summarize
from tests.eval.cases import HELDOUT


def answer(path: str, steps: int, source: str = "snapshot") -> dict[str, Any]:
    step = dict.fromkeys(STEP_PARTS, 10.0) | {"prefix_source": source}
    timings = dict.fromkeys(TURN_PARTS, 1.0) | {"total_ms": 50.0}
    return {"path": path, "timings": timings | {"steps": [step] * steps}}


def test_the_summary_counts_model_turns_after_the_first() -> None:
    answers = [
        (9000.0, answer("model", 1, source="fresh")),
        (20.0, answer("fast_path", 0)),
        (1000.0, answer("model", 1)),
        (3000.0, answer("model", 2)),
    ]
    summary = summarize(answers)
    assert summary["turns"] == 2
    assert (summary["first_turn_ms"], summary["first_turn_prefix_source"]) == (9000.0, "fresh")
    assert summary["whole_turn_max_ms"] == 3000.0
    assert summary["turns_by_steps"] == {"1": 1, "2": 1}
    assert summary["steps_per_turn"] == 1.5
    assert summary["step_sum"]["total_ms"] == 30.0
    assert summary["prefix_sources"] == {"snapshot": 3}


def test_only_cases_that_reach_the_model_are_benched() -> None:
    cases = model_path_cases(HELDOUT, set(), per_category=1)
    assert cases and not any(case.deterministic for case in cases)
    assert len({case.category for case in cases}) == len(cases)
