"""The peer, measured side by side: the evaluation cases (tests/eval/) on the demo home against

* `ha`: HA 2026.10's own local-LLM stack: an Assist pipeline preferring local commands (the
  default agent's intents), then the core `llama_cpp` conversation agent (HA's Assist LLM
  API, the integration's recommended options) talking to a `llama-server` with the GGUF;
* `botpsy-local`: BotPsy with the model in its own process;
* `botpsy-server`: BotPsy with the same GGUF behind a `llama-server` (its server backend).

Each stack runs alone, from nothing: its first-answer time counts from the moment its
processes start. The cases run and are judged by the evaluation's own runner and scorer (HA
is the judge: its states, calendar, list and the service calls it received); for HA's
stack, a case's `path` and `speech` expectations (BotPsy's own paths and wording) are not
checked. The report headlines the cases HA's stack can pass by design
(bench/peer_cases.py) and gives the whole suite second; a change the user commanded that
BotPsy's policy refuses or holds for a confirmation is reported as such, not as a false
action. HA's llama-server gets a chat template under which it parses the Qwen2.5-Coder
models' tool calls (devkit/templates/qwen25_bare_tool_calls.jinja; --ha-own-template runs
the GGUF's own). Writes bench/results/peer-<date>.json, .md and a plot per model.

Usage: make bench ARGS="--peer [--models NAME ...] [--stacks ...] [--only ...] [--per-category N]"
       make bench ARGS="--peer --render bench/results/peer-<date>.json"   (the .md again;
       only reports written since the HA-judged evaluation: older ones have no case records)
(no --only / --per-category: all 205 cases, both models, about 80 minutes on 2 idle cores).
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
from bench.peer_cases import split_false_actions
from bench.peer_report import case_record, markdown, table_stats
from botpsy_agent.llm.llama_server import ServerSettings
from demo.client import AgentClient
from demo.home_setup import ha_client
from demo.stack import INSTANCE, DemoStack, ModelChoice, stop_cleanly_on_sigterm
from devkit import ha_peer, peer_env, real_models
from devkit.llama_server import LlamaServer
from tests.eval.cases import DEV, Case, load_cases
from tests.eval.home import Home
from tests.eval.report import Outcome, RunResult, summarize
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
FORMAT = "peer-2"
"""The JSON's shape: per stack the evaluation's report (HA-judged) and per-case records."""
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


TEMPLATES = Path(__file__).resolve().parents[1] / "devkit" / "templates"
HA_TEMPLATES = {
    "qwen2.5-coder-0.5b": TEMPLATES / "qwen25_bare_tool_calls.jinja",
    "qwen2.5-coder-1.5b": TEMPLATES / "qwen25_bare_tool_calls.jinja",
}
"""The chat template HA's llama-server gets per model. With the GGUF's own template
llama-server (jinja on) parses only `<tool_call>`-tagged calls, and these models write the
bare JSON object: it reaches HA as text (docs/decisions.md D62)."""
PIPELINE = (
    f"'{ha_peer.PIPELINE_NAME}', text in, intent stage only, \"prefer handling commands "
    "locally\" on (the default agent's intents first, then the LLM agent), language en"
)
AGENT = (
    "HA core's `llama_cpp` conversation integration, added through its own config flow: "
    "the options a user keeps (recommended: HA's Assist LLM API over the exposed entities, "
    "HA's default instructions prompt, temperature 0.7, top_p 1.0, up to 3,000 tokens a "
    "step, at most 10 tool rounds), streaming as the flow detects it"
)


def ha_server_args(model_name: str, *, own_template: bool) -> tuple[str, ...]:
    """The llama-server flags HA's stack gets beyond LlamaServer's own."""
    template = None if own_template else HA_TEMPLATES.get(model_name)
    return ("--jinja", *(("--chat-template-file", str(template)) if template else ()))


def ha_setup(model_name: str, *, own_template: bool) -> dict[str, Any]:
    """HA's stack as it runs, for the report's header."""
    args = ha_server_args(model_name, own_template=own_template)
    shown = [
        a if not a.endswith(".jinja") else str(Path(a).relative_to(TEMPLATES.parents[1]))
        for a in args
    ]
    template = "--chat-template-file" in args
    return {
        "pipeline": PIPELINE,
        "agent": AGENT,
        "server_args": [
            "llama-server --model <gguf> --host 127.0.0.1 --ctx-size",
            str(CONTEXT),
            "--threads 2 --parallel 1 --no-webui",
            *shown,
        ],
        "tool_calls": (
            "the template renders and asks for a tool call as a bare JSON object, which "
            "llama-server's template analysis then parses into OpenAI `tool_calls` (the "
            "GGUF's own template expects `<tool_call>` tags, which these models leave out; "
            "its calls then reached HA as text)"
            if template
            else "the GGUF's own chat template (llama-server parses only `<tool_call>`-tagged "
            "calls; these models mostly write the bare JSON object, which reaches HA as text)"
        ),
    }


async def run_stack(
    name: str,
    model: Path,
    cases: list[Case],
    run_dir: Path,
    say: Say,
    *,
    ha_args: tuple[str, ...],
) -> dict[str, Any]:
    started = time.monotonic()
    server: LlamaServer | None = None
    if name != "botpsy-local":
        extra = ha_args if name == "ha" else ()
        say(f"{name}: starting llama-server with {model.name} {' '.join(extra)}")
        server = LlamaServer(model, run_dir / f"llama-server-{name}.log", CONTEXT, extra_args=extra)
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


async def _client_for(name: str, stack: DemoStack, server: LlamaServer | None, say: Say) -> Asker:
    assert stack.accounts is not None
    accounts = stack.accounts
    if name != "ha":
        agent = AgentClient(stack.broker.host, stack.broker.port, INSTANCE, stack.secret)
        await agent.connect()
        return agent
    assert server is not None
    say("ha: adding the llama_cpp integration and a local-first Assist pipeline")
    llm_agent = await ha_peer.add_llama_cpp(stack.ha_url, accounts.token, server.url)
    pipeline = await ha_peer.add_local_first_pipeline(stack.ha_url, accounts.token, llm_agent)
    child = await ha_peer.token_for(stack.ha_url, accounts.token, accounts.child_id, "sam")
    tokens = {accounts.admin_id: accounts.token, accounts.child_id: child}
    return ha_peer.PeerClient(stack.ha_url, accounts.token, pipeline, tokens)


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
    client = await _client_for(name, stack, server, say)
    recorder = Recorder(client)
    ready_s = time.monotonic() - started
    load = [round(os.getloadavg()[0], 2)]
    result = RunResult(DEV, 1, datetime.now(UTC).isoformat())
    records: list[dict[str, Any]] = []
    first_answer_s: float | None = None

    def names_seen(entity_id: str, entity_name: str) -> bool:
        entity = app.index.home.entities.get(entity_id)
        return entity is not None and entity.name == entity_name

    names = {e.entity_id: (e.name, *e.aliases) for e in app.index.home.entities.values()}
    try:
        async with ha_client(stack.ha_url, stack.accounts.token) as ha:
            home = Home(ha, names_seen=names_seen)
            await home.start()
            evaluation = Evaluation(stack, recorder, home)
            for number, case in enumerate(cases, 1):
                recorder.case = case.id
                asked = as_peer_case(case) if name == "ha" else case
                outcome = await evaluation.run_case(asked)
                outcome.case = case  # reported under the case as written
                outcome.false_actions, forbidden = split_false_actions(
                    case, outcome.false_actions, names
                )
                if first_answer_s is None:
                    first_answer_s = ready_s + outcome.latencies_ms[0] / 1000
                result.outcomes.append(outcome)
                records.append(case_record(outcome, forbidden))
                mark = "ok  " if outcome.passed else ("BAD " if outcome.unsafe else "miss")
                why = "; ".join([*outcome.reasons, *forbidden])[:160]
                say(f"{name}: {number:3}/{len(cases)} {mark} {case.category:18} {case.id} {why}")
    finally:
        if isinstance(client, AgentClient):
            await client.close()
    load.append(round(os.getloadavg()[0], 2))
    duration_s = time.monotonic() - started
    report = summarize([result], stand_in=False, model=name, duration_s=duration_s, load=load)
    report["cases"] = records
    report["ready_s"] = round(ready_s, 1)
    report["first_answer_s"] = round(first_answer_s, 1) if first_answer_s is not None else None
    report["paths"] = _paths(result.outcomes)
    report["errors"] = recorder.errors
    report["no_tool_answers"] = no_tool_answers(report["runs"][0])
    return report


class Recorder:
    """Passes questions on and keeps every answer's error code: an `error` status on a
    shared machine is often a model step past its timeout, and the report says which."""

    def __init__(self, client: Asker) -> None:
        self.client = client
        self.case = ""
        self.errors: list[str] = []

    async def ask_when_warm(
        self,
        text: str,
        user_id: str,
        *,
        conversation_id: str | None = None,
        on_wait: Callable[[dict[str, Any]], None] | None = None,
    ) -> dict[str, Any]:
        answer = await self.client.ask_when_warm(
            text, user_id, conversation_id=conversation_id, on_wait=on_wait
        )
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
    """How a stack's answers read (in one run of the report: its categories and failures)
    where no tool fits: refused or asked back (the status),
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


def plot(model: str, stacks: dict[str, Any], path: Path) -> None:
    """Per category, the share of cases each stack passed; per stack, turn latency."""
    categories = sorted({r["category"] for s in stacks.values() for r in s["cases"]})
    figure, (rates, times) = plt.subplots(1, 2, figsize=(13, 4.5), width_ratios=(3, 1))
    width = 0.8 / max(len(stacks), 1)
    for index, (stack, report) in enumerate(stacks.items()):
        values = []
        for category in categories:
            group = [r for r in report["cases"] if r["category"] == category]
            values.append(sum(r["passed"] for r in group) / len(group) if group else 0)
        rates.bar([x + index * width for x in range(len(categories))], values, width, label=stack)
        figures = table_stats(report["cases"])
        times.bar(
            [index - 0.2, index + 0.2],
            [(figures["p50_ms"] or 0) / 1000, (figures["p95_ms"] or 0) / 1000],
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
    rates.set_title(f"{model}: success per category (whole suite)")
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
        "format": FORMAT,
        "date": stamp,
        "arguments": " ".join(args.argv) or "(none: every case)",
        "machine": machine.describe(),
        "load_before": [round(x, 2) for x in os.getloadavg()],
        "stacks": list(args.stacks),
        "cases": [c.id for c in cases],
        "ha_setup": ha_setup(args.models[0], own_template=args.ha_own_template),
        "models": {},
        "plots": {},
    }
    run_dir = RUN_DIR
    await asyncio.to_thread(run_dir.mkdir, parents=True, exist_ok=True)
    for name in args.models:
        model = await asyncio.to_thread(real_models.fetch, name)
        ha_args = ha_server_args(name, own_template=args.ha_own_template)
        results["models"][name] = {}
        for stack in args.stacks:
            say(f"{name} on {stack}: {len(cases)} cases")
            results["models"][name][stack] = await run_stack(
                stack, model, cases, run_dir, say, ha_args=ha_args
            )
        plot_file = f"peer-{name}-{stamp}.png"
        plot(name, results["models"][name], RESULTS / plot_file)
        results["plots"][name] = plot_file
    return results


def render(path: Path) -> None:
    """The .md again from a run's .json; reports from before the HA-judged evaluation (no
    per-case records) are left as they were committed."""
    results = json.loads(path.read_text())
    if results.get("format") != FORMAT:
        raise SystemExit(
            f"[peer] {path} is an older peer report (no per-case records): its .md stays as "
            "committed; only reports written by this bench render again"
        )
    path.with_suffix(".md").write_text(markdown(results))
    print(f"[peer] wrote {path.with_suffix('.md')}")


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
        "--ha-own-template",
        action="store_true",
        help="give HA's llama-server the GGUF's own chat template (its calls then reach HA as "
        "text), not devkit/templates/qwen25_bare_tool_calls.jinja",
    )
    parser.add_argument(
        "--render", type=Path, metavar="JSON", help="only write the .md again from a run's .json"
    )
    args = parser.parse_args(argv)
    if args.render is not None:
        render(args.render)
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
