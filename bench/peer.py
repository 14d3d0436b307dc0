"""The peer, measured side by side: the evaluation cases (tests/eval/) on the demo home against

* `ha`: HA 2026.10's own local-LLM stack: an Assist pipeline preferring local commands (the
  default agent's intents), then the core `llama_cpp` conversation agent (HA's Assist LLM
  API, the integration's recommended options) talking to a `llama-server` with the GGUF;
* `botpsy-local`: BotPsy with the model in its own process;
* `botpsy-server`: BotPsy with the same GGUF behind a `llama-server` (its server backend).

Each stack runs alone, from nothing: its first-answer time counts from the moment its
processes start. The cases run and are scored by the evaluation's own runner and scoring;
for HA's stack, a case's `path` and `speech` expectations (BotPsy's own paths and wording)
are not checked, its statuses, outcomes, permissions and claims are. HA's stack has no
per-user permissions: the child's cases run with the child's own HA token, and what HA lets
the child do counts as it behaves. Writes bench/results/peer-<date>.json, .md and a plot per
model.

Usage: make bench ARGS="--peer [--models NAME ...] [--stacks ...] [--only ...] [--per-category N]"
       make bench ARGS="--peer --render bench/results/peer-<date>.json"   (the .md again)
(no --only / --per-category: all 204 cases, both models, about 80 minutes on 2 idle cores).
"""

from __future__ import annotations

import argparse
import asyncio
from collections import defaultdict
from collections.abc import Callable
import contextlib
import dataclasses
from datetime import UTC, datetime
import json
import os
from pathlib import Path
import time
from typing import Any

import matplotlib as mpl

from bench import machine
from botpsy_agent.llm.server import ServerSettings
from demo.client import AgentClient
from demo.home_setup import ha_client
from demo.stack import INSTANCE, DemoStack, ModelChoice, stop_cleanly_on_sigterm
from devkit import ha_peer, peer_env, real_models
from devkit.llama_server import LlamaServer
from tests.eval.cases import Case, load_cases
from tests.eval.home import Home
from tests.eval.report import Outcome, summarize
from tests.eval.run import Asker, Evaluation

mpl.use("Agg")
import matplotlib.pyplot as plt

RESULTS = Path(__file__).parent / "results"
RUN_DIR = Path(__file__).resolve().parents[1] / "demo" / "run" / "peer"
STACKS = ("ha", "botpsy-local", "botpsy-server")
TITLES = {
    "ha": "HA's own (local intents, then llama_cpp)",
    "botpsy-local": "BotPsy, model in-process",
    "botpsy-server": "BotPsy, llama-server backend",
}
CONTEXT = 16384
"""Every stack's context window (the app's own, demo/stack.py)."""
SERVER_TIMEOUT_S = 300.0
"""The bench's server backend waits this long for one step: on 2 shared cores a 1.5B step
can take longer than the app's default of 20 s, and there is no local model to fall back on."""
PEER_CONFIG = "assist_pipeline:\n"
"""The demo's HA has no Assist pipelines by default (no default_config)."""
type Say = Callable[[str], None]


def pick(cases: list[Case], only: set[str], per_category: int | None) -> list[Case]:
    """The cases to run: those `only` names (categories or ids), then per category at most
    `per_category`, spread evenly over the category's cases in file order."""
    chosen = [c for c in cases if not only or only & {c.category, c.id}]
    if per_category is None:
        return chosen
    groups: dict[str, list[Case]] = defaultdict(list)
    for case in chosen:
        groups[case.category].append(case)
    kept: set[str] = set()
    for group in groups.values():
        count = min(per_category, len(group))
        kept |= {group[(i * len(group)) // count].id for i in range(count)}
    return [c for c in chosen if c.id in kept]


def as_peer_case(case: Case) -> Case:
    """The case without BotPsy's own paths and wording, for HA's stack."""
    turns = tuple(dataclasses.replace(t, path=None, speech=None) for t in case.turns)
    return dataclasses.replace(case, turns=turns)


async def run_stack(
    name: str, model: Path, cases: list[Case], run_dir: Path, say: Say
) -> dict[str, Any]:
    started = time.monotonic()
    server: LlamaServer | None = None
    if name != "botpsy-local":
        jinja = ("--jinja",) if name == "ha" else ()  # OpenAI tools need the model's template
        say(f"{name}: starting llama-server with {model.name}")
        server = LlamaServer(model, run_dir / f"llama-server-{name}.log", CONTEXT, extra_args=jinja)
        await asyncio.to_thread(server.start)
    try:
        stack = DemoStack(
            ModelChoice(model if name == "botpsy-local" else None, stand_in=False),
            lambda line: say(f"{name}: {line}"),
            run_dir=run_dir / name,
            model_server=(
                ServerSettings(server.url, timeout_s=SERVER_TIMEOUT_S)
                if name == "botpsy-server" and server is not None
                else None
            ),
            ha_pythonpath=peer_env.ensure(say) if name == "ha" else None,
            extra_config=PEER_CONFIG if name == "ha" else "",
        )
        async with stack:
            return await _evaluate(
                name, stack=stack, server=server, cases=cases, started=started, say=say
            )
    finally:
        if server is not None:
            server.stop()


async def _evaluate(
    name: str,
    *,
    stack: DemoStack,
    server: LlamaServer | None,
    cases: list[Case],
    started: float,
    say: Say,
) -> dict[str, Any]:
    assert stack.accounts is not None and stack.app is not None
    app = stack.app
    accounts = stack.accounts
    agent = AgentClient(stack.broker.host, stack.broker.port, INSTANCE, stack.secret)
    client: Asker = agent
    if name == "ha":
        assert server is not None
        say("ha: adding the llama_cpp integration and a local-first Assist pipeline")
        llm_agent = await ha_peer.add_llama_cpp(stack.ha_url, accounts.token, server.url)
        pipeline = await ha_peer.add_local_first_pipeline(stack.ha_url, accounts.token, llm_agent)
        child = await ha_peer.token_for(stack.ha_url, accounts.token, accounts.child_id, "sam")
        tokens = {accounts.admin_id: accounts.token, accounts.child_id: child}
        client = ha_peer.PeerClient(stack.ha_url, accounts.token, pipeline, tokens)
    else:
        await agent.connect()
    recorder = Recorder(client)
    ready_s = time.monotonic() - started
    outcomes: list[Outcome] = []
    first_answer_s: float | None = None

    def names_seen(entity_id: str, entity_name: str) -> bool:
        entity = app.index.home.entities.get(entity_id)
        return entity is not None and entity.name == entity_name

    try:
        async with ha_client(stack.ha_url, accounts.token) as ha:
            home = Home(ha, names_seen=names_seen)
            await home.start()
            evaluation = Evaluation(stack, recorder, home)
            for number, case in enumerate(cases, 1):
                recorder.case = case.id
                asked = as_peer_case(case) if name == "ha" else case
                outcome = await evaluation.run_case(asked)
                outcome.case = case  # reported under the case as written
                if first_answer_s is None:
                    first_answer_s = ready_s + outcome.latencies_ms[0] / 1000
                outcomes.append(outcome)
                mark = "ok  " if outcome.passed else "miss"
                why = "; ".join(
                    outcome.problems + outcome.violations + outcome.false_actions
                    + outcome.false_claims
                )[:160]  # fmt: skip
                say(f"{name}: {number:3}/{len(cases)} {mark} {case.category:18} {case.id} {why}")
    finally:
        if name != "ha":
            await agent.close()
    report = summarize(outcomes, stand_in=False, model=name, duration_s=time.monotonic() - started)
    report["ready_s"] = round(ready_s, 1)
    report["first_answer_s"] = round(first_answer_s, 1) if first_answer_s is not None else None
    report["paths"] = _paths(outcomes)
    report["errors"] = recorder.errors
    report["child_allowed"] = [
        f"{o.case.id}: {v}" for o in outcomes if o.case.user == "child" for v in o.violations
    ]
    report["refused"] = {
        category: sum("refused" in o.statuses for o in outcomes if o.case.category == category)
        for category in report["categories"]
    }
    return report


class Recorder:
    """Passes questions on and keeps every answer's error code: an `error` status on a
    shared machine is often a model step past its timeout, and the report says which."""

    def __init__(self, client: Asker) -> None:
        self.client = client
        self.case = ""
        self.errors: list[str] = []

    async def ask_when_warm(
        self, text: str, user_id: str, *, conversation_id: str | None = None
    ) -> dict[str, Any]:
        answer = await self.client.ask_when_warm(text, user_id, conversation_id=conversation_id)
        if answer.get("status") == "error":
            error = answer.get("error")
            code = error.get("code") if isinstance(error, dict) else None
            self.errors.append(f"{self.case}: {text!r}: {code or answer.get('speech') or '?'}")
        return answer


def _paths(outcomes: list[Outcome]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for outcome in outcomes:
        for path in outcome.paths:
            counts[path] += 1
    return dict(counts)


def markdown(results: dict[str, Any]) -> str:
    host = results["machine"]
    lines = [
        f"# The peer, side by side, {results['date']}",
        "",
        f'`make bench ARGS="--peer ..."` (bench/peer.py) on {host["cpu_model"]} '
        f"({host['logical_cpus']} logical CPUs, shared), one stack at a time, each from nothing. "
        f"Arguments: `{results['arguments']}`. {len(results['cases'])} cases ran, the same for "
        f"every stack: {', '.join(results['cases'])}.",
        "",
        "Stacks: " + "; ".join(f"**{s}**: {TITLES[s]}" for s in results["stacks"]) + ".",
        "",
        *([f"**Note:** {results['note']}", ""] if results.get("note") else []),
        "The Qwen2.5-Coder models are general-purpose coder models, not BotPsy and not tuned for "
        "HA's Assist API either: they stand in for a tool-calling model in every stack. "
        "HA's stack is scored by the same checks, except the cases' `path` and `speech` "
        "expectations (BotPsy's own). Violations: a change the user may not make under the "
        "demo's policy, or a lock / the garage door changed without a confirmation.",
        "",
    ]
    for model, stacks in results["models"].items():
        lines += [f"## {model}", "", "| stack | ready s | first answer s | passed | false actions "
                  "| false claims | violations | child allowed | p50 ms | p95 ms |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]  # fmt: skip
        for stack, report in stacks.items():
            o = report["overall"]
            lines.append(
                f"| {stack} | {report['ready_s']} | {report['first_answer_s']} "
                f"| {o['passed']}/{o['cases']} | {o['false_actions']} | {o['false_claims']} "
                f"| {o['permission_violations']} | {len(report['child_allowed'])} "
                f"| {o['latency_p50_ms']} | {o['latency_p95_ms']} |"
            )
        lines += [
            "",
            "| category | stack | passed | false actions | false claims | refused "
            "| refusal recall | violations | p50 ms | p95 ms |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        categories = sorted({c for r in stacks.values() for c in r["categories"]})
        for category in categories:
            for stack, report in stacks.items():
                s = report["categories"].get(category)
                if s is None:
                    continue
                lines.append(
                    f"| {category} | {stack} | {s['passed']}/{s['cases']} | {s['false_actions']} "
                    f"| {s['false_claims']} | {report['refused'].get(category, 0)} "
                    f"| {_cell(s['refusal_recall'])} | {s['permission_violations']} "
                    f"| {_cell(s['latency_p50_ms'])} | {_cell(s['latency_p95_ms'])} |"
                )
        lines += ["", f"![{model}]({results['plots'][model]})", ""]
        for stack, report in stacks.items():
            lines.append(f"What **{stack}** let the child account do that it should not:")
            lines += [f"- {line}" for line in report["child_allowed"]] or ["- nothing"]
            lines.append(f"Answer paths: {json.dumps(report['paths'])}.")
            if "no_tool_fits" in report["categories"]:
                kinds = ", ".join(f"{k} {n}" for k, n in no_tool_answers(report).items())
                lines.append(f"Where no tool fits (status, then a word match): {kinds}.")
            if "errors" in report:
                lines.append(f"Answers with status `error`: {len(report['errors'])}.")
                lines += [f"- {line}" for line in report["errors"]]
            lines.append("")
    return "\n".join(lines) + "\n"


DECLINES = (
    "i can't",
    "i cannot",
    "i can not",
    "i'm unable",
    "i am unable",
    "i'm not able",
    "i am not able",
    "i don't have the ability",
    "i do not have the ability",
    "i'm sorry",
    "unfortunately",
)
"""Words that decline in plain English: HA's stack has no refusal status (an LLM's text is
`done`), so its answers to the requests no tool fits are read by these words instead."""


def no_tool_answers(report: dict[str, Any]) -> dict[str, int]:
    """How a stack's answers read where no tool fits: refused or asked back (the status),
    declined in words, a tool call written out as text (JSON or tags), or answered (a joke, a
    translation, a fact: what HA lets its LLM do and BotPsy does not). A word match."""
    category = "no_tool_fits"
    cases = (report["categories"].get(category) or {}).get("cases", 0)
    kinds = {"refused or asked": 0, "declined in words": 0, "tool call as text": 0, "answered": 0}
    failed = [f for f in report["failures"] if f["category"] == category]
    for failure in failed:
        speech = " ".join(t.get("speech") or "" for t in failure["turns"]).lower()
        if {t.get("status") for t in failure["turns"]} & {"refused", "needs_clarification"}:
            kinds["refused or asked"] += 1
        elif ('"name"' in speech and '"arguments"' in speech) or any(
            tag in speech for tag in ("<tools>", "<tool_call>", "<function")
        ):
            kinds["tool call as text"] += 1
        elif any(words in speech.replace("\u2019", "'") for words in DECLINES):
            kinds["declined in words"] += 1
        else:
            kinds["answered"] += 1
    kinds["refused or asked"] += cases - len(failed)  # what a case here passes with
    return kinds


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)


def plot(model: str, stacks: dict[str, Any], path: Path) -> None:
    categories = sorted({c for r in stacks.values() for c in r["categories"]})
    figure, (rates, times) = plt.subplots(1, 2, figsize=(13, 4.5), width_ratios=(3, 1))
    width = 0.8 / max(len(stacks), 1)
    for index, (stack, report) in enumerate(stacks.items()):
        values = [(report["categories"].get(c) or {}).get("success_rate") or 0 for c in categories]
        rates.bar([x + index * width for x in range(len(categories))], values, width, label=stack)
        overall = report["overall"]
        times.bar(
            [index - 0.2, index + 0.2],
            [(overall["latency_p50_ms"] or 0) / 1000, (overall["latency_p95_ms"] or 0) / 1000],
            0.4,
            color=[f"C{index}", f"C{index}"],
            alpha=0.9,
        )
    rates.set_xticks(
        [x + width for x in range(len(categories))], categories, rotation=35, ha="right"
    )
    rates.set_ylabel("cases passed (share)")
    rates.set_ylim(0, 1)
    rates.legend(loc="upper left", bbox_to_anchor=(0, -0.32), ncols=len(stacks))
    rates.set_title(f"{model}: success per category")
    times.set_xticks(range(len(stacks)), list(stacks), rotation=20)
    times.set_yscale("log")
    times.set_ylabel("answer time, s (left p50, right p95; log)")
    times.set_title("latency per turn")
    figure.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(figure)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    def say(line: str) -> None:
        print(f"[peer] {line}", flush=True)

    cases = pick(load_cases(), set(args.only or ()), args.per_category)
    if not cases:
        raise SystemExit("[peer] no case chosen")
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    results: dict[str, Any] = {
        "date": stamp,
        "arguments": " ".join(args.argv) or "(none: every case)",
        "machine": machine.describe(),
        "load_before": [round(x, 2) for x in os.getloadavg()],
        "stacks": list(args.stacks),
        "cases": [c.id for c in cases],
        "models": {},
        "plots": {},
    }
    run_dir = RUN_DIR
    await asyncio.to_thread(run_dir.mkdir, parents=True, exist_ok=True)
    for name in args.models:
        model = await asyncio.to_thread(real_models.fetch, name)
        results["models"][name] = {}
        for stack in args.stacks:
            say(f"{name} on {stack}: {len(cases)} cases")
            results["models"][name][stack] = await run_stack(stack, model, cases, run_dir, say)
        plot_file = f"peer-{name}-{stamp}.png"
        plot(name, results["models"][name], RESULTS / plot_file)
        results["plots"][name] = plot_file
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="make bench ARGS='--peer ...'",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--models", nargs="+", default=list(real_models.MODELS))
    parser.add_argument("--stacks", nargs="+", choices=STACKS, default=list(STACKS))
    parser.add_argument("--only", nargs="*", help="only these categories or case ids")
    parser.add_argument("--per-category", type=int, help="at most N cases of each category")
    parser.add_argument(
        "--render", type=Path, metavar="JSON", help="only write the .md again from a run's .json"
    )
    args = parser.parse_args(argv)
    if args.render is not None:
        results = json.loads(args.render.read_text())
        args.render.with_suffix(".md").write_text(markdown(results))
        print(f"[peer] wrote {args.render.with_suffix('.md')}")
        return 0
    args.argv = argv or []
    stop_cleanly_on_sigterm()
    RESULTS.mkdir(exist_ok=True)
    with contextlib.suppress(KeyboardInterrupt):
        results = asyncio.run(run(args))
        stem = RESULTS / f"peer-{results['date']}"
        stem.with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n")
        stem.with_suffix(".md").write_text(markdown(results))
        print(markdown(results))
        print(f"[peer] wrote {stem}.json and .md")
        return 0
    return 130


if __name__ == "__main__":
    raise SystemExit(main())
