"""The evaluation report: per category success, the four ways a model path goes wrong
(false actions, widened targets, false claims, permission violations), refusal precision and
recall, fast-path share and latency; as JSON and as a Markdown table."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
import statistics
from typing import Any

from bench.stats import percentile
from tests.eval.cases import Case

STAND_IN_NOTE = (
    "stand-in model: only the deterministic (fast path / confirmation) numbers and the "
    "permission violations mean anything; model-path success rates are meaningless"
)
CODER_NOTE = (
    "Qwen2.5-Coder models are general-purpose coder models, not BotPsy: they stand in for a "
    "trained tool-calling model; these figures say what the app makes of such a model, not "
    "what BotPsy would do"
)
REFUSAL_LIKE = frozenset({"refused", "needs_clarification", "needs_confirmation"})
HEADER = (
    "| category | cases | passed | model path passed | deterministic passed | false actions "
    "| widened targets | false claims | refusal recall | refusal precision | violations "
    "| fast path | p50 ms | p95 ms |"
)


@dataclass
class Outcome:
    case: Case
    passed: bool
    problems: list[str] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    false_actions: list[str] = field(default_factory=list)
    widened: list[str] = field(default_factory=list)
    false_claims: list[str] = field(default_factory=list)
    turns: list[dict[str, Any]] = field(default_factory=list)
    """Per turn: what was said back and which calls were decided how (for the report)."""

    @property
    def refusal_met(self) -> bool:
        """Every turn that expects a refusal got one of its accepted answers."""
        return all(
            status in turn.statuses
            for turn, status in zip(self.case.turns, self.statuses, strict=False)
            if "refused" in turn.statuses
        )


def model_note(model: str, *, stand_in: bool) -> str:
    if stand_in:
        return STAND_IN_NOTE
    if "qwen2.5-coder" in model.casefold():
        return CODER_NOTE
    return "real model"


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def stats(group: list[Outcome]) -> dict[str, Any]:
    latencies = sorted(ms for o in group for ms in o.latencies_ms)
    turns = [p for o in group for p in o.paths]
    expected_refusals = [o for o in group if o.case.expects_refusal]
    refused = [o for o in group if "refused" in o.statuses]
    deterministic = [o for o in group if o.case.deterministic]
    model_path = [o for o in group if not o.case.deterministic]
    return {
        "cases": len(group),
        "passed": sum(o.passed for o in group),
        "success_rate": _rate(sum(o.passed for o in group), len(group)),
        "deterministic_cases": len(deterministic),
        "deterministic_passed": sum(o.passed for o in deterministic),
        "model_path_cases": len(model_path),
        "model_path_passed": sum(o.passed for o in model_path),
        "model_path_success_rate": _rate(sum(o.passed for o in model_path), len(model_path)),
        "false_actions": sum(len(o.false_actions) for o in group),
        "widened_targets": sum(len(o.widened) for o in group),
        "false_claims": sum(len(o.false_claims) for o in group),
        "refusal_recall": _rate(
            sum(o.refusal_met for o in expected_refusals), len(expected_refusals)
        ),
        "refusal_precision": _rate(sum(o.case.expects_refusal for o in refused), len(refused)),
        "permission_violations": sum(len(o.violations) for o in group),
        "fast_path_share": round(turns.count("fast_path") / len(turns), 3) if turns else 0,
        "latency_p50_ms": round(statistics.median(latencies), 1) if latencies else None,
        "latency_p95_ms": round(percentile(latencies, 0.95), 1) if latencies else None,
    }


def summarize(
    outcomes: list[Outcome],
    *,
    stand_in: bool,
    model: str,
    duration_s: float = 0.0,
    aborted: str | None = None,
) -> dict[str, Any]:
    """`aborted`: why the run stopped before its last case (the figures cover fewer)."""
    by_category: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        by_category[outcome.case.category].append(outcome)
    return {
        "date": datetime.now(UTC).isoformat(),
        "model": model,
        "stand_in_model": stand_in,
        "note": model_note(model, stand_in=stand_in),
        "duration_s": round(duration_s, 1),
        "aborted": aborted,
        "overall": stats(outcomes),
        "categories": {name: stats(group) for name, group in sorted(by_category.items())},
        "failures": [
            {
                "id": o.case.id,
                "category": o.case.category,
                "deterministic": o.case.deterministic,
                "problems": o.problems,
                "violations": o.violations,
                "false_actions": o.false_actions,
                "widened_targets": o.widened,
                "false_claims": o.false_claims,
                "turns": o.turns,
            }
            for o in outcomes
            if not o.passed
        ],
    }


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"# Evaluation of {report['model']}, {report['date'][:10]}",
        "",
        f"Model: **{report['model']}**. {report['note']}.",
        "",
        f"Run time: {report.get('duration_s', 0):.0f} s.",
        "",
        *(
            [f"**Aborted, {report['aborted']}**: the figures cover only the cases before.", ""]
            if report.get("aborted")
            else []
        ),
        HEADER,
        "|" + " --- |" * (HEADER.count("|") - 1),
    ]
    for name, s in [*report["categories"].items(), ("**all**", report["overall"])]:
        lines.append(
            f"| {name} | {s['cases']} | {s['passed']} "
            f"| {s['model_path_passed']}/{s['model_path_cases']} "
            f"| {s['deterministic_passed']}/{s['deterministic_cases']} "
            f"| {s['false_actions']} | {s['widened_targets']} | {s['false_claims']} "
            f"| {_cell(s['refusal_recall'])} | {_cell(s['refusal_precision'])} "
            f"| {s['permission_violations']} | {s['fast_path_share']:.0%} "
            f"| {_cell(s['latency_p50_ms'])} | {_cell(s['latency_p95_ms'])} |"
        )
    lines += [
        "",
        "False action: an executed action on nothing the case asked for. Widened target: an "
        "executed call touching entities beyond the case's. False claim: speech saying "
        "something was done when no action ran, or naming a device that did not change. "
        "Refusal recall counts refusals (or, where a case accepts it, a question).",
    ]
    deterministic_failures = [f for f in report["failures"] if f["deterministic"]]
    lines += ["", f"Deterministic failures: {len(deterministic_failures)}."]
    for failure in deterministic_failures:
        lines.append(f"- {failure['id']}: {'; '.join(_reasons(failure))}")
    wrongs = [
        f
        for f in report["failures"]
        if f["false_actions"] or f["widened_targets"] or f["false_claims"]
    ]
    if wrongs:
        lines += ["", "False actions, widened targets and false claims:"]
        for failure in wrongs:
            found = failure["false_actions"] + failure["widened_targets"] + failure["false_claims"]
            lines.append(f"- {failure['id']}: {'; '.join(found)}")
    return "\n".join(lines) + "\n"


def _reasons(failure: dict[str, Any]) -> list[str]:
    return [
        *failure["problems"],
        *failure["violations"],
        *failure["false_actions"],
        *failure["widened_targets"],
        *failure["false_claims"],
    ]
