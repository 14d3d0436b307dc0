"""`make eval`: every case against the demo home in a real Home Assistant, over the real path.

Two sets: **dev** (tests/eval/cases, the cases word lists, prompts and grammar may be tuned
on) and **held-out** (tests/eval/heldout.py: the model-path cases in other words, in the same
home with every device and room renamed, plus requests no tool fits); `--set reworded` runs a
second tuning set, the dev cases in other words (tests/eval/reworded.yaml). HA is the judge
(tests/eval/scoring.py): its states, calendar, list and the service calls it received; the
app's own record is only compared with them. Each report gives, per set and category, the
action-case, answer and no-change rates beside two baselines (refuse everything, do
nothing), wrong actions, false actions, widened targets, false claims, permission violations
and whole-turn latency; `make eval` fails below the floors of tests/eval/floors.yaml.

--model takes a GGUF path or the name of a real test-bed model (devkit/real_models.py:
qwen2.5-coder-0.5b, qwen2.5-coder-1.5b), fetched and verified into the cache on first use.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
import json
import os
from pathlib import Path
import re
import sys
import time
from typing import Any, Protocol

from botpsy_agent.ha.errors import HaError
from botpsy_agent.policy import Principal, scope
from demo.__main__ import choose_model
from demo.client import AgentClient
from demo.home_setup import ha_client
from demo.stack import INSTANCE, DemoStack, ModelChoice, stop_cleanly_on_sigterm
from devkit import real_models
from tests.eval.baselines import baselines_passed
from tests.eval.cases import DEV, HELDOUT, REWORDED, Case, load_cases
from tests.eval.floors import check_floors, load_floors
from tests.eval.heldout import RENAMED_HOME, reworded_cases
from tests.eval.home import Home
from tests.eval.layouts import LAYOUTS, heldout_in
from tests.eval.report import Outcome, RunResult, markdown, step_breakdown, summarize
from tests.eval.scoring import HaCall, Readings, changed_entities, judge
from tool_schemas.base import Access
from tool_schemas.catalog import TOOLS

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results"
SENSITIVE = ("lock.", "cover.garage_door", "alarm_control_panel.")


def _shown(call: HaCall) -> str:
    targets = ",".join(sorted(call.entity_ids)) or "-"
    said = f" {call.text!r}" if call.text else ""
    return f"turn {call.turn}: {call.domain}.{call.service} {targets}{said}"


def _turn_record(said: str, answer: dict[str, Any]) -> dict[str, Any]:
    """What a failed case's report shows of one turn. The calls' arguments are the app's own
    (its audit log redacts them; this report is of a demo home)."""
    return {
        "say": said,
        "status": answer.get("status"),
        "speech": answer.get("speech"),
        "error": (answer.get("error") or {}).get("code"),
        "actions": [
            {
                k: action.get(k)
                for k in ("tool", "arguments", "entity_ids", "decision", "rule", "outcome")
            }
            for action in answer.get("actions", [])
        ],
    }


class Asker(Protocol):
    """Who answers the cases: the app over MQTT (`AgentClient`), or another stack through
    HA (bench/peer.py)."""

    async def ask_when_warm(
        self,
        text: str,
        user_id: str,
        *,
        conversation_id: str | None = None,
        on_wait: Callable[[dict[str, Any]], None] | None = None,
    ) -> dict[str, Any]: ...


class Evaluation:
    def __init__(self, stack: DemoStack, client: Asker, home: Home) -> None:
        self.stack, self.client, self.home = stack, client, home
        assert stack.accounts is not None and stack.app is not None
        self.people = {"admin": stack.accounts.admin_id, "child": stack.accounts.child_id}

    def _allowed_control(self, user: str) -> set[str]:
        app = self.stack.app
        assert app is not None
        principal = Principal.user(self.people[user], user, is_admin=user == "admin")
        allowed = scope(app.policies.policy, principal, app.index.home, app.now())
        control = [name for name, tool in TOOLS.items() if tool.access is Access.CONTROL]
        return {e for tool in control for e in allowed.entities_for(tool)}

    async def run_case(self, case: Case) -> Outcome:
        await self.home.reset()
        await self.home.set_up(case.setup)
        await asyncio.sleep(0.05)
        now = self.home.now()
        before = await self.home.states()
        events_before = await self.home.events()
        items_before = await self.home.items()
        outcome = Outcome(case, passed=True)
        answers: list[dict[str, Any]] = []
        conversation: str | None = None
        for number, turn in enumerate(case.turns, 1):
            await self.stack.wait_ready()  # at once, unless HA is restarting
            self.home.begin_turn(number)
            started = [time.monotonic()]

            def warming(_answer: dict[str, Any], started: list[float] = started) -> None:
                started[0] = time.monotonic()  # the wait for the first prefix is not a turn

            answer = await self.client.ask_when_warm(
                turn.say, self.people[case.user], conversation_id=conversation, on_wait=warming
            )
            outcome.latencies_ms.append((time.monotonic() - started[0]) * 1000)
            answers.append(answer)
            conversation = answer.get("conversation_id") or conversation
            outcome.statuses.append(answer["status"])
            outcome.paths.append(answer.get("path", "none"))
            outcome.model_steps.append(step_breakdown(answer.get("timings")))
            outcome.turns.append(_turn_record(turn.say, answer))
        await asyncio.sleep(0.2)  # state events settle
        calls = await self.home.end_turns()
        after = await self.home.states()
        readings = Readings(
            now,
            before,
            after,
            events_before,
            await self.home.events(),
            items_before,
            await self.home.items(),
            calls,
        )
        judgement = judge(case, answers, readings)
        self._check_permissions(case, answers, changed_entities(case, readings), outcome)
        outcome.problems = judgement.problems
        outcome.wrong_actions = judgement.wrong_actions
        outcome.false_actions = judgement.false_actions
        outcome.widened = judgement.widened
        outcome.false_claims = judgement.false_claims
        outcome.passed = judgement.passed and not outcome.violations
        outcome.ha_calls = [_shown(call) for call in readings.changes]
        outcome.baselines = baselines_passed(case, readings.unchanged())
        return outcome

    def _check_permissions(
        self, case: Case, answers: list[dict[str, Any]], changed: set[str], outcome: Outcome
    ) -> None:
        confirmed = any(a.get("path") == "confirmation" for a in answers)
        allowed = self._allowed_control(case.user)
        for entity_id in changed - set(case.changes):
            if entity_id not in allowed:
                outcome.violations.append(
                    f"{entity_id} changed for {case.user}, who may not control it"
                )
        for entity_id in changed:
            if entity_id.startswith(SENSITIVE) and not confirmed:
                outcome.violations.append(f"{entity_id} changed without a confirmation")


async def resolve_model(given: str | None, *, stand_in: bool) -> tuple[ModelChoice, str]:
    """The model to run and its name in the report: a real test-bed model by name, a file by
    path, or the demo's choice (the app's download, else the stand-in)."""
    if given is not None and given in real_models.MODELS:
        path = await asyncio.to_thread(real_models.fetch, given)
        return ModelChoice(path, stand_in=False), f"{given} ({real_models.MODELS[given].title})"
    model = await choose_model(Path(given) if given else None, stand_in=stand_in)
    if model.stand_in:
        return model, "stand-in"
    return model, model.path.stem if model.path else "none"


def result_stem(model: str, stamp: str, name: str | None = None) -> str:
    """`eval-<model>-<date>[-<name>]`: the model's short name, safe in a file name."""
    short = model.split(" ", 1)[0]
    stem = f"eval-{re.sub(r'[^A-Za-z0-9._-]+', '-', short).strip('-') or 'model'}-{stamp}"
    return f"{stem}-{re.sub(r'[^A-Za-z0-9._-]+', '-', name)}" if name else stem


def plan(args: argparse.Namespace) -> list[tuple[str, int, list[Case]]]:
    """The runs to make: (split, run number, cases). The held-out set runs `--runs` times
    (the prompt carries the clock: runs at different times differ)."""
    only = set(args.only or ())
    dev = load_cases()
    wanted = {DEV, HELDOUT} if args.set == "both" else {args.set}
    if args.home != "demo" and wanted & {DEV, REWORDED}:
        raise SystemExit(
            f"[eval] --home {args.home} is for the held-out set (the dev set is said in the demo "
            "home): add --set heldout"
        )
    runs: list[tuple[str, int, list[Case]]] = []
    if DEV in wanted:
        runs.append((DEV, 1, [c for c in dev if not only or only & {c.category, c.id}]))
    if REWORDED in wanted:
        reworded = [
            c
            for c in reworded_cases(dev, every=args.variants == "all")
            if not only or only & {c.category, c.id, c.id.split("~")[0]}
        ]
        runs.append((REWORDED, 1, reworded))
    if HELDOUT in wanted:
        heldout = [
            c
            for c in heldout_in(LAYOUTS[args.home], dev, every=args.variants == "all")
            if not only or only & {c.category, c.id, c.id.split("~")[0]}
        ]
        runs += [(HELDOUT, n, heldout) for n in range(1, args.runs + 1)]
    if args.limit is not None:
        runs = [(split, n, cases[: args.limit]) for split, n, cases in runs]
    runs = [r for r in runs if r[2]]
    if not runs:
        raise SystemExit(f"[eval] no case is or is in {', '.join(sorted(only))}")
    return runs


async def evaluate(args: argparse.Namespace) -> int:
    runs = plan(args)
    layout = LAYOUTS[args.home]
    model, label = await resolve_model(args.model, stand_in=args.stand_in)
    if args.no_jump_forward:
        model = replace(model, jump_forward=False)
        label += " [jump-forward off]"

    def say(line: str) -> None:
        print(f"[eval] {line}", flush=True)

    say(f"model: {label}; held-out home: {layout.name}")
    machine = [load_average()]
    async with DemoStack(model, say, extra_config=layout.extra_yaml) as stack:
        assert stack.accounts is not None and stack.app is not None
        app = stack.app
        client = AgentClient(stack.broker.host, stack.broker.port, INSTANCE, stack.secret)
        await client.connect()

        def names_seen(entity_id: str, name: str) -> bool:
            entity = app.index.home.entities.get(entity_id)
            return entity is not None and entity.name == name

        def area_seen(area_id: str, name: str) -> bool:
            area = app.index.home.areas.get(area_id)
            return area is not None and area.name == name

        started = time.monotonic()
        results: list[RunResult] = []
        try:
            async with ha_client(stack.ha_url, stack.accounts.token) as ha:
                home = Home(ha, names_seen=names_seen, area_seen=area_seen)
                await home.start()
                if layout.name != "demo":  # the held-out set only (plan): arranged once
                    say(f"arranging the {layout.name}: floors, rooms, names, its own entities")
                    await home.arrange(layout)
                evaluation = Evaluation(stack, client, home)
                for split, number, cases in runs:
                    renamed = split == HELDOUT and layout.name == "demo"
                    if renamed:
                        await home.rename(RENAMED_HOME)
                    prepared_s = await stack.model_settled()
                    try:
                        result = await run_cases(evaluation, split, number, cases, say)
                        result.prepared_s = prepared_s
                    finally:
                        if renamed:
                            await home.rename(RENAMED_HOME, back=True)
                    results.append(result)
                    machine.append(load_average())
                    if result.aborted:
                        break
        finally:
            await client.close()
    report = summarize(
        results,
        stand_in=model.stand_in,
        model=label,
        duration_s=time.monotonic() - started,
        load=machine,
        home=layout.name,
    )
    failed = check_floors(report, load_floors())
    report["floors_failed"] = failed
    RESULTS.mkdir(exist_ok=True)
    stem = result_stem(label, datetime.now(UTC).strftime("%Y-%m-%d"), args.name)
    (RESULTS / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / f"{stem}.md").write_text(markdown(report))
    (RESULTS / "eval-latest.md").write_text(markdown(report))
    print(markdown(report))
    say(f"written: {RESULTS / stem}.json and .md")
    for line in failed:
        say(f"below the floor: {line}")
    return 0 if not failed and not any(r.aborted for r in results) else 1


async def run_cases(
    evaluation: Evaluation,
    split: str,
    number: int,
    cases: list[Case],
    say: Callable[[str], None],
) -> RunResult:
    result = RunResult(split, number, datetime.now(UTC).isoformat())
    for index, case in enumerate(cases, 1):
        try:
            outcome = await evaluation.run_case(case)
        except HaError as error:  # HA went away: report what was scored
            result.aborted = f"stopped at case {index}/{len(cases)} ({case.id}): {error}"
            say(result.aborted)
            break
        result.outcomes.append(outcome)
        mark = "ok " if outcome.passed else ("FAIL" if case.deterministic else "miss")
        if outcome.unsafe:
            mark = "BAD "
        why = "; ".join(outcome.reasons)[:200]
        say(
            f"{split} {number} {index:3}/{len(cases)} {mark} {case.category:18} {case.id}"
            + (f"  ({why})" if why else "")
        )
    return result


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="make eval", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--model",
        default=None,
        help=f"a GGUF file, or a real test-bed model: {', '.join(real_models.MODELS)}",
    )
    parser.add_argument("--stand-in", action="store_true", help="use the generated stand-in model")
    parser.add_argument("--only", nargs="*", help="only these categories or case ids")
    parser.add_argument(
        "--set",
        choices=("dev", "heldout", "both", "reworded"),
        default="both",
        help="the dev cases, the held-out variants, or both (default); reworded: the dev "
        "cases in other words (tests/eval/reworded.yaml), a second tuning set",
    )
    parser.add_argument(
        "--runs", type=int, default=1, help="how many times the held-out set runs (default 1)"
    )
    parser.add_argument(
        "--variants",
        choices=("one", "all"),
        default="one",
        help="held-out (or reworded) paraphrases per case: one (a stable choice per case) or all",
    )
    parser.add_argument(
        "--home",
        choices=tuple(LAYOUTS),
        default="demo",
        help="the home the held-out set is said in (tests/eval/layouts.py; default demo: the "
        "demo home renamed); flat and house take --set heldout",
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="only the first N cases of each run (a smoke)"
    )
    parser.add_argument(
        "--no-jump-forward",
        action="store_true",
        help="feed the text the grammar forces token by token, as sampled (D58's check that "
        "jump-forward changes no answer)",
    )
    parser.add_argument("--name", default=None, help="a suffix for the report's file name")
    args = parser.parse_args()
    stop_cleanly_on_sigterm()
    try:
        sys.exit(asyncio.run(evaluate(args)))
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
