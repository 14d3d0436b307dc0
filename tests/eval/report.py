"""The evaluation report, per set (dev, held-out) and run: what a user gets (the action-case,
answer and no-change rates, beside two baselines judged by the same scorer), the ways a model
path goes wrong (wrong actions, false actions, widened targets, false claims, permission
violations), whole-turn latency, and the held-out runs' spread; as JSON and as Markdown."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
import statistics
from typing import Any

from bench.stats import percentile
from tests.eval.cases import ACTION, ANSWER, HELDOUT, KINDS, NO_CHANGE, Case

STAND_IN_NOTE = (
    "stand-in model: only the deterministic (fast path / confirmation) numbers and the "
    "permission violations mean anything; model-path success rates are meaningless"
)
CODER_NOTE = (
    "Qwen2.5-Coder models are general-purpose coder models, not BotPsy: they stand in for a "
    "trained tool-calling model; these figures say what the app makes of such a model, not "
    "what BotPsy would do"
)
BASELINES = ("refuse_all", "do_nothing")
SUMMARY_HEADER = (
    "| set | run | cases | action cases | answers | no change | wrong actions | false actions "
    "| widened | false claims | violations | deterministic | model turn p50 / p95 ms "
    "| every turn p50 / p95 ms |"
)
CATEGORY_HEADER = (
    "| category | cases | passed | action cases | answers | no change | wrong | false "
    "| widened | false claims | violations | p50 ms | p95 ms |"
)


@dataclass
class Outcome:
    case: Case
    passed: bool
    problems: list[str] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    """Per turn, request in to answer out as the user waits (every model step and HA)."""
    violations: list[str] = field(default_factory=list)
    wrong_actions: list[str] = field(default_factory=list)
    false_actions: list[str] = field(default_factory=list)
    widened: list[str] = field(default_factory=list)
    false_claims: list[str] = field(default_factory=list)
    turns: list[dict[str, Any]] = field(default_factory=list)
    """Per turn: what was said back and which calls were decided how (for the report)."""
    baselines: dict[str, bool] = field(default_factory=dict)
    """Whether each baseline (refuse everything, do nothing) would have passed this case."""
    ha_calls: list[str] = field(default_factory=list)
    """The service calls HA received (turn, domain.service, targets, message), for the
    report of a failed case: what it was judged on."""
    model_steps: list[str] = field(default_factory=list)
    """Per turn, where a model turn's time went (`step_breakdown`), "" for other turns."""

    @property
    def unsafe(self) -> bool:
        return bool(
            self.wrong_actions
            or self.false_actions
            or self.widened
            or self.false_claims
            or self.violations
        )

    @property
    def reasons(self) -> list[str]:
        return [
            *self.problems,
            *self.violations,
            *(f"wrong action: {w}" for w in self.wrong_actions),
            *(f"false action: {w}" for w in self.false_actions),
            *(f"widened: {w}" for w in self.widened),
            *(f"false claim: {w}" for w in self.false_claims),
        ]


@dataclass
class RunResult:
    split: str
    number: int
    started: str
    outcomes: list[Outcome] = field(default_factory=list)
    aborted: str | None = None
    prepared_s: float = 0.0
    """How long the app's model worked before the first case (the prompts it prepares
    when ready and after the held-out set's renames): no turn waits for it."""


def model_note(model: str, *, stand_in: bool) -> str:
    if stand_in:
        return STAND_IN_NOTE
    if "qwen2.5-coder" in model.casefold():
        return CODER_NOTE
    return "real model"


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def _kind_stats(group: list[Outcome], kind: str) -> dict[str, Any]:
    """The model-path cases of one kind: passed, and what each baseline would pass."""
    cases = [o for o in group if o.case.kind == kind and not o.case.deterministic]
    passed = sum(o.passed for o in cases)
    return {
        "cases": len(cases),
        "passed": passed,
        "rate": _rate(passed, len(cases)),
        **{name: sum(o.baselines.get(name, False) for o in cases) for name in BASELINES},
    }


def _latency(values: list[float]) -> dict[str, float | None]:
    ordered = sorted(values)
    return {
        "p50_ms": round(statistics.median(ordered), 1) if ordered else None,
        "p95_ms": round(percentile(ordered, 0.95), 1) if ordered else None,
    }


def stats(group: list[Outcome]) -> dict[str, Any]:
    turns = [p for o in group for p in o.paths]
    deterministic = [o for o in group if o.case.deterministic]
    model_ms = [
        ms for o in group for ms, p in zip(o.latencies_ms, o.paths, strict=False) if p == "model"
    ]
    return {
        "cases": len(group),
        "passed": sum(o.passed for o in group),
        **{kind: _kind_stats(group, kind) for kind in KINDS},
        "deterministic_cases": len(deterministic),
        "deterministic_passed": sum(o.passed for o in deterministic),
        "wrong_actions": sum(len(o.wrong_actions) for o in group),
        "false_actions": sum(len(o.false_actions) for o in group),
        "widened_targets": sum(len(o.widened) for o in group),
        "false_claims": sum(len(o.false_claims) for o in group),
        "permission_violations": sum(len(o.violations) for o in group),
        "fast_path_share": round(turns.count("fast_path") / len(turns), 3) if turns else 0,
        "model_turns": {"turns": len(model_ms), **_latency(model_ms)},
        "every_turn": _latency([ms for o in group for ms in o.latencies_ms]),
    }


SLOWEST_SHOWN = 8
"""How many of a run's slowest model turns the report names: those that make its p95."""


def step_breakdown(timings: dict[str, Any] | None) -> str:
    """A model turn's steps as the answer's `timings` give them: per step its time, the
    request tokens evaluated (and a prefix build), the tokens generated."""
    parts = []
    for step in (timings or {}).get("steps") or ():
        built = f", prefix built {step.get('build_ms', 0):.0f} ms" if step.get("build_ms") else ""
        parts.append(
            f"step {step.get('step', 0)} {step.get('total_ms', 0):.0f} ms: "
            f"{step.get('evaluated_tokens', 0)} tokens in {step.get('prompt_ms', 0):.0f} ms"
            f"{built}, {step.get('sampled_tokens', 0)} sampled + "
            f"{step.get('forced_tokens', 0)} forced in {step.get('generation_ms', 0):.0f} ms"
        )
    return "; ".join(parts)


def slowest_model_turns(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    """The run's slowest model-path turns, slowest first: case, what was said, ms, and
    where the model's part of it went."""
    turns = [
        {"case": o.case.id, "say": turn.say, "ms": round(ms, 1), "steps": steps}
        for o in outcomes
        for turn, ms, path, steps in zip(
            o.case.turns,
            o.latencies_ms,
            o.paths,
            [*o.model_steps, *[""] * (len(o.latencies_ms) - len(o.model_steps))],
            strict=False,
        )
        if path == "model"
    ]
    return sorted(turns, key=lambda t: -t["ms"])[:SLOWEST_SHOWN]


def run_report(result: RunResult) -> dict[str, Any]:
    by_category: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in result.outcomes:
        by_category[outcome.case.category].append(outcome)
    return {
        "set": result.split,
        "run": result.number,
        "started": result.started,
        "prepared_s": round(result.prepared_s, 1),
        "aborted": result.aborted,
        "overall": stats(result.outcomes),
        "categories": {name: stats(group) for name, group in sorted(by_category.items())},
        "baseline_passes": {
            name: [o.case.id for o in result.outcomes if o.baselines.get(name)]
            for name in BASELINES
        },
        "slowest_model_turns": slowest_model_turns(result.outcomes),
        "failures": [
            {
                "id": o.case.id,
                "category": o.case.category,
                "kind": o.case.kind,
                "deterministic": o.case.deterministic,
                "problems": o.problems,
                "violations": o.violations,
                "wrong_actions": o.wrong_actions,
                "false_actions": o.false_actions,
                "widened_targets": o.widened,
                "false_claims": o.false_claims,
                "turns": o.turns,
                "ha_calls": o.ha_calls,
            }
            for o in result.outcomes
            if not o.passed
        ],
    }


def spread(runs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per category (and `all`), the action-case rate's mean and range over the runs."""
    names = sorted({n for r in runs for n in r["categories"]})
    found: dict[str, dict[str, Any]] = {}
    for name in [*names, "all"]:
        figures = [
            (r["overall"] if name == "all" else r["categories"].get(name, {})).get(ACTION)
            for r in runs
        ]
        passed = [f["passed"] for f in figures if f and f["cases"]]
        cases = next((f["cases"] for f in figures if f and f["cases"]), 0)
        if passed:
            found[name] = {
                "action_cases": cases,
                "mean": round(statistics.mean(passed), 2),
                "min": min(passed),
                "max": max(passed),
            }
    return found


def summarize(
    results: list[RunResult],
    *,
    stand_in: bool,
    model: str,
    duration_s: float = 0.0,
    load: list[float] | None = None,
    home: str = "demo",
) -> dict[str, Any]:
    """`load`: the machine's 1-minute load average before the first run and after each.
    `home`: the home the held-out set was said in (tests/eval/layouts.py)."""
    runs = [run_report(r) for r in results]
    heldout = [r for r in runs if r["set"] == HELDOUT]
    return {
        "date": datetime.now(UTC).isoformat(),
        "model": model,
        "stand_in_model": stand_in,
        "note": model_note(model, stand_in=stand_in),
        "home": home,
        "duration_s": round(duration_s, 1),
        "load_average": load or [],
        "runs": runs,
        "heldout_spread": spread(heldout) if len(heldout) > 1 else {},
    }


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)


def _kind_cell(s: dict[str, Any], kind: str) -> str:
    k = s[kind]
    if not k["cases"]:
        return "-"
    return f"{k['passed']}/{k['cases']} ({k['rate']:.0%})"


def _ms(figures: dict[str, Any]) -> str:
    return f"{_cell(figures['p50_ms'])} / {_cell(figures['p95_ms'])}"


def _summary_row(label: str, run: str, s: dict[str, Any]) -> str:
    return (
        f"| {label} | {run} | {s['cases']} | {_kind_cell(s, ACTION)} | {_kind_cell(s, ANSWER)} "
        f"| {_kind_cell(s, NO_CHANGE)} | {s['wrong_actions']} | {s['false_actions']} "
        f"| {s['widened_targets']} | {s['false_claims']} | {s['permission_violations']} "
        f"| {s['deterministic_passed']}/{s['deterministic_cases']} "
        f"| {_ms(s['model_turns'])} | {_ms(s['every_turn'])} |"
    )


def _baseline_rows(run: dict[str, Any]) -> list[str]:
    s = run["overall"]
    rows = []
    for name in BASELINES:
        cells = []
        for kind in KINDS:
            k = s[kind]
            cells.append(f"{k[name]}/{k['cases']}" if k["cases"] else "-")
        rows.append(
            f"| {run['set']} | baseline: {name.replace('_', ' ')} | {s['cases']} | "
            + " | ".join(cells)
            + " | 0 | 0 | 0 | 0 | 0 | - | - | - |"
        )
    return rows


def _prepared_line(runs: list[dict[str, Any]]) -> list[str]:
    prepared = [
        f"{r['set']} {r['run']}: {r['prepared_s']:g} s" for r in runs if r.get("prepared_s")
    ]
    if not prepared:
        return []
    return [
        "Before each run the app prepared its people's prompts, as it does when its model is "
        f"ready and after a change of names ({', '.join(prepared)}): the turns below are warm "
        "ones.",
        "",
    ]


def markdown(report: dict[str, Any]) -> str:
    runs = report["runs"]
    lines = [
        f"# Evaluation of {report['model']}, {report['date'][:10]}",
        "",
        f"Model: **{report['model']}**. {report['note']}.",
        "",
        f"Held-out home: **{report.get('home', 'demo')}** (tests/eval/layouts.py); the dev set "
        "is always said in the demo home.",
        "",
        f"Run time: {report.get('duration_s', 0):.0f} s. Machine load (1-minute average, before "
        f"and after each run): {', '.join(map(str, report.get('load_average') or [])) or '-'}.",
        "",
        *_prepared_line(runs),
        *(
            [f"**Corrected after the run:** {report['corrected']}.", ""]
            if report.get("corrected")
            else []
        ),
        "Judged by HA: its states, calendar, list and the service calls it received; the "
        "app's own record is only compared with them. Rates count model-path cases; the "
        "deterministic column counts fast-path and confirmation cases.",
        "",
        SUMMARY_HEADER,
        "|" + " --- |" * (SUMMARY_HEADER.count("|") - 1),
    ]
    for run in runs:
        lines.append(_summary_row(run["set"], str(run["run"]), run["overall"]))
    for split in dict.fromkeys(r["set"] for r in runs):
        lines += _baseline_rows(next(r for r in runs if r["set"] == split))
    lines += [
        "",
        "Action case: a change is required. Answer: a fact, nothing to change. No change: "
        "nothing may change (a refusal or a question). Wrong action: HA changed what the case "
        "names, but not as asked (direction, size, recipient, content, time). False action: "
        "HA changed something the case does not name. Widened: one call changed a named and "
        "an unnamed entity. False claim: the app's record says a call ran that HA never "
        "received, or the speech says a deed HA did not see. A baseline row gives how many "
        "cases a model path that refuses everything, or answers 'done' and does nothing, "
        "would pass, judged by the same scorer.",
    ]
    for run in runs:
        if run.get("aborted"):
            lines += ["", f"**{run['set']} run {run['run']} aborted, {run['aborted']}**."]
    if report.get("heldout_spread"):
        lines += [
            "",
            "Held-out action cases passed over the runs (mean, min-max):",
            "",
            "| category | action cases | mean | range |",
            "| --- | --- | --- | --- |",
        ]
        for name, s in report["heldout_spread"].items():
            lines.append(f"| {name} | {s['action_cases']} | {s['mean']} | {s['min']}-{s['max']} |")
    for run in runs:
        lines += ["", f"## {run['set']}, run {run['run']} ({run['started'][:16]})", ""]
        lines += [CATEGORY_HEADER, "|" + " --- |" * (CATEGORY_HEADER.count("|") - 1)]
        for name, s in [*run["categories"].items(), ("**all**", run["overall"])]:
            lines.append(
                f"| {name} | {s['cases']} | {s['passed']} | {_kind_cell(s, ACTION)} "
                f"| {_kind_cell(s, ANSWER)} | {_kind_cell(s, NO_CHANGE)} | {s['wrong_actions']} "
                f"| {s['false_actions']} | {s['widened_targets']} | {s['false_claims']} "
                f"| {s['permission_violations']} | {_cell(s['every_turn']['p50_ms'])} "
                f"| {_cell(s['every_turn']['p95_ms'])} |"
            )
        unsafe = [
            f
            for f in run["failures"]
            if f["wrong_actions"]
            or f["false_actions"]
            or f["widened_targets"]
            or f["false_claims"]
            or f["violations"]
        ]
        if unsafe:
            lines += ["", "What ran or was said that nobody asked for:"]
            for failure in unsafe:
                found = [
                    *(f"wrong action: {w}" for w in failure["wrong_actions"]),
                    *(f"false action: {w}" for w in failure["false_actions"]),
                    *(f"widened: {w}" for w in failure["widened_targets"]),
                    *(f"false claim: {w}" for w in failure["false_claims"]),
                    *failure["violations"],
                ]
                lines.append(f"- {failure['id']}: {'; '.join(found)}")
        if run.get("slowest_model_turns"):
            lines += ["", "Slowest model turns (what makes the p95):"]
            lines += [
                f'- {t["ms"]:.0f} ms: {t["case"]}, "{t["say"]}"'
                + (f" ({t['steps']})" if t.get("steps") else "")
                for t in run["slowest_model_turns"]
            ]
        deterministic = [f for f in run["failures"] if f["deterministic"]]
        lines += ["", f"Deterministic failures: {len(deterministic)}."]
        for failure in deterministic:
            lines.append(f"- {failure['id']}: {'; '.join(failure['problems'])}")
    if report.get("floors_failed"):
        lines += ["", "**Below the floors** (tests/eval/floors.yaml):"]
        lines += [f"- {line}" for line in report["floors_failed"]]
    return "\n".join(lines) + "\n"
