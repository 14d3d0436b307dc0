"""The peer report: per case what each stack got (`case_record`, kept in the JSON), and the
Markdown read from those records alone (`markdown`, so `--render` rewrites it from the JSON).

First the cases HA's stack can pass by design (bench/peer_cases.py), then the whole suite,
then per category, then what was left out of the headline and why. Rates count every case of
a kind, fast path included: HA's stack has no deterministic path, its local intents answer
what they match."""

from __future__ import annotations

from collections import Counter, defaultdict
import json
import statistics
from typing import Any

from bench.peer_cases import REASONS, ha_cannot_pass
from bench.stats import percentile
from tests.eval.cases import KINDS
from tests.eval.report import BASELINES, Outcome

COUNTS = ("wrong_actions", "false_actions", "widened", "false_claims", "violations")
TABLE_HEADER = (
    "| stack | cases passed | action cases | answers | no change | wrong actions "
    "| false actions | widened | false claims | violations | done what BotPsy's policy forbids "
    "| p50 / p95 ms |"
)


def case_record(outcome: Outcome, policy_forbidden: list[str]) -> dict[str, Any]:
    """What the report needs of one case: its kind, whether HA's stack can pass it by design,
    and what the stack got (the false actions already without those the user asked for)."""
    case = outcome.case
    return {
        "id": case.id,
        "category": case.category,
        "user": case.user,
        "kind": case.kind,
        "ha_cannot_pass": ha_cannot_pass(case),
        "passed": outcome.passed,
        "wrong_actions": outcome.wrong_actions,
        "false_actions": outcome.false_actions,
        "widened": outcome.widened,
        "false_claims": outcome.false_claims,
        "violations": outcome.violations,
        "policy_forbidden": policy_forbidden,
        "baselines": outcome.baselines,
        "statuses": outcome.statuses,
        "paths": outcome.paths,
        "latencies_ms": [round(ms, 1) for ms in outcome.latencies_ms],
    }


def table_stats(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Passed per kind (and what each baseline passes), the unsafe counts, latency."""
    kinds = {}
    for kind in KINDS:
        group = [r for r in records if r["kind"] == kind]
        kinds[kind] = {
            "cases": len(group),
            "passed": sum(r["passed"] for r in group),
            **{b: sum(r["baselines"].get(b, False) for r in group) for b in BASELINES},
        }
    turns = sorted(ms for r in records for ms in r["latencies_ms"])
    return {
        "cases": len(records),
        "passed": sum(r["passed"] for r in records),
        **kinds,
        **{name: sum(len(r[name]) for r in records) for name in COUNTS},
        "policy_forbidden": sum(len(r["policy_forbidden"]) for r in records),
        "p50_ms": round(statistics.median(turns), 1) if turns else None,
        "p95_ms": round(percentile(turns, 0.95), 1) if turns else None,
    }


def comparable(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r["ha_cannot_pass"] is None]


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.0%})" if whole else "-"


def _row(label: str, s: dict[str, Any]) -> str:
    kinds = " | ".join(_share(s[k]["passed"], s[k]["cases"]) for k in KINDS)
    return (
        f"| {label} | {_share(s['passed'], s['cases'])} | {kinds} | {s['wrong_actions']} "
        f"| {s['false_actions']} | {s['widened']} | {s['false_claims']} | {s['violations']} "
        f"| {s['policy_forbidden']} | {_cell(s['p50_ms'])} / {_cell(s['p95_ms'])} |"
    )


def _baseline_rows(s: dict[str, Any]) -> list[str]:
    rows = []
    for name in BASELINES:
        kinds = " | ".join(_share(s[k][name], s[k]["cases"]) for k in KINDS)
        total = sum(s[k][name] for k in KINDS)
        label = f"baseline: {name.replace('_', ' ')}"
        rows.append(
            f"| {label} | {_share(total, s['cases'])} | {kinds} | - | - | - | - | - | - | - |"
        )
    return rows


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)


def stack_table(stacks: dict[str, Any], pick: Any) -> list[str]:
    """One row per stack over the records `pick` keeps, then the two baselines."""
    lines = [TABLE_HEADER, "|" + " --- |" * (TABLE_HEADER.count("|") - 1)]
    figures = {name: table_stats(pick(report["cases"])) for name, report in stacks.items()}
    lines += [_row(name, s) for name, s in figures.items()]
    if figures:
        lines += _baseline_rows(next(iter(figures.values())))
    return lines


def category_table(stacks: dict[str, Any]) -> list[str]:
    lines = [
        "| category | comparable / cases | stack | passed | passed of the comparable "
        "| wrong | false | false claims | violations | policy forbids | p50 ms | p95 ms |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    by_stack: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for name, report in stacks.items():
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for record in report["cases"]:
            groups[record["category"]].append(record)
        by_stack[name] = groups
    categories = sorted({c for groups in by_stack.values() for c in groups})
    for category in categories:
        for name, groups in by_stack.items():
            group = groups.get(category)
            if not group:
                continue
            s, c = table_stats(group), table_stats(comparable(group))
            lines.append(
                f"| {category} | {c['cases']}/{s['cases']} | {name} | {s['passed']} "
                f"| {_share(c['passed'], c['cases'])} | {s['wrong_actions']} "
                f"| {s['false_actions']} | {s['false_claims']} | {s['violations']} "
                f"| {s['policy_forbidden']} | {_cell(s['p50_ms'])} | {_cell(s['p95_ms'])} |"
            )
    return lines


def left_out(records: list[dict[str, Any]]) -> list[str]:
    """The cases out of the headline, per reason."""
    groups: dict[str, list[str]] = defaultdict(list)
    for record in records:
        if record["ha_cannot_pass"]:
            groups[record["ha_cannot_pass"]].append(record["id"])
    return [
        f"- **{reason}** ({len(ids)}): {REASONS[reason]}: {', '.join(ids)}."
        for reason, ids in groups.items()
    ]


def setup_lines(setup: dict[str, Any]) -> list[str]:
    """HA's stack as it ran: pipeline, agent options, llama-server flags, why those flags."""
    return [
        "**HA's stack as set up** (bench/peer.py, devkit/ha_peer.py):",
        "",
        f"- Assist pipeline: {setup['pipeline']}.",
        f"- Conversation agent: {setup['agent']}.",
        f"- llama-server: `{' '.join(setup['server_args'])}`.",
        f"- Tool calls: {setup['tool_calls']}",
        "",
    ]


def markdown(results: dict[str, Any]) -> str:
    host = results["machine"]
    lines = [
        f"# The peer, side by side, {results['date']}",
        "",
        f'`make bench ARGS="--peer ..."` (bench/peer.py) on {host["cpu_model"]} '
        f"({host['logical_cpus']} logical CPUs, shared), one stack at a time, each from nothing. "
        f"Arguments: `{results['arguments']}`. Load before: {results.get('load_before')}. "
        f"{len(results['cases'])} cases ran, the same for every stack.",
        "",
        *([f"**Note:** {results['note']}", ""] if results.get("note") else []),
        *setup_lines(results["ha_setup"]),
        "Judged by HA, as the evaluation is (tests/eval/README.md): its states, calendar, list "
        "and the service calls it received; each stack's record of its own actions is only "
        "compared with them. For HA's stack the cases' `path` and `speech` expectations "
        "(BotPsy's own paths and wording) are not checked. The Qwen2.5-Coder models are "
        "general-purpose coder models, tuned for neither BotPsy nor HA's Assist API.",
        "",
        "**False actions** are changes nobody asked for. Where the request is the user's own "
        "command that BotPsy's policy refuses or holds for a confirmation (the child unlocking "
        "the front door; the garage opened without a yes) and the stack carried it out, the "
        "change counts under **done what BotPsy's policy forbids** instead, and the "
        "permission check lists it as a violation. Violations: a change the user may not "
        "make under demo/policy.yaml, or a lock / the garage door changed without a "
        "confirmation.",
        "",
    ]
    for model, stacks in results["models"].items():
        records = next(iter(stacks.values()))["cases"] if stacks else []
        shown = len(comparable(records))
        lines += [
            f"## {model}",
            "",
            f"### The cases HA's stack can pass by design ({shown} of {len(records)})",
            "",
            *stack_table(stacks, comparable),
            "",
            "### The whole suite",
            "",
            *stack_table(stacks, lambda records: records),
            "",
            "| stack | ready s | first answer s | answer paths |",
            "| --- | --- | --- | --- |",
            *(
                f"| {name} | {r['ready_s']} | {r['first_answer_s']} | {json.dumps(r['paths'])} |"
                for name, r in stacks.items()
            ),
            "",
            "### Per category",
            "",
            *category_table(stacks),
            "",
            "### Left out of the first table",
            "",
            *left_out(records),
            "",
        ]
        if results.get("plots", {}).get(model):
            lines += [f"![{model}]({results['plots'][model]})", ""]
        for name, report in stacks.items():
            lines += _stack_notes(name, report)
    return "\n".join(lines) + "\n"


def _stack_notes(name: str, report: dict[str, Any]) -> list[str]:
    lines = [f"#### {name}", ""]
    forbidden = [f"{r['id']}: {a}" for r in report["cases"] for a in r["policy_forbidden"]]
    lines.append(f"Done what BotPsy's policy forbids ({len(forbidden)}):")
    lines += [f"- {line}" for line in forbidden] or ["- nothing"]
    unasked = [
        f"{r['id']}: {'; '.join(r['false_actions'] + r['wrong_actions'] + r['widened'])}"
        for r in report["cases"]
        if r["false_actions"] or r["wrong_actions"] or r["widened"]
    ]
    lines.append(f"Wrong actions, false actions and widened targets ({len(unasked)} cases):")
    lines += [f"- {line}" for line in unasked] or ["- none"]
    claims = [
        f"{r['id']}: {'; '.join(r['false_claims'])}" for r in report["cases"] if r["false_claims"]
    ]
    lines.append(f"False claims ({len(claims)} cases):")
    lines += [f"- {line}" for line in claims] or ["- none"]
    if report.get("no_tool_answers"):
        kinds = ", ".join(f"{k} {n}" for k, n in report["no_tool_answers"].items())
        lines.append(f"Where no tool fits (status, then a word match): {kinds}.")
    statuses = Counter(s for r in report["cases"] for s in r["statuses"])
    lines.append(f"Statuses: {json.dumps(dict(statuses))}.")
    errors = report.get("errors") or []
    lines.append(f"Answers with status `error`: {len(errors)}.")
    lines += [f"- {line}" for line in errors]
    return [*lines, ""]
