"""Fast-path coverage and speed against HA's own agent, per language, in one run.

`make bench ARGS=--fast-path` (`python -m bench --fast-path`):

1. Starts Mosquitto and a real HA process with the demo home and the bench's own house
   (bench/coverage/home.py, about 250 entities), onboards it, places and exposes every
   entity, and starts the BotPsy app in a process of its own (no model: fast path only).
2. For each pass (en, en-renamed, ko, ko-renamed, id, id-renamed) it renames the home in
   HA's registries, then says every sentence of bench/coverage/sentences/<language>.yaml
   * to the fast path (in this process, on the app's own entity index: recognise, resolve
     in the admin's scope, authorise), judged by the call: tool, exact entities, parameters;
   * to HA's default agent (`conversation/process` over HA's WebSocket API, agent
     `conversation.home_assistant`), which acts on the home: its answer counts unless it is
     an error, and where it acts its targets are compared with the expected ones and ours.
3. Speed, in the same run, on the same sentences: every sentence is also sent to the app
   over MQTT (the whole answer: request in, execution in HA, answer out), the app and HA's
   agent taking turns to go first; the app's breakdown of each answer (`timings`) is kept
   and the figures are those of the sentences both answered.

Writes bench/results/fast-path-<date>.json and .md.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
import json
import os
from pathlib import Path
import subprocess
import sys
import tempfile
import time
from typing import Any

from bench.coverage import home as house
from bench.coverage.sentences import DEV, HELD_OUT, Sentence, sentences, template_counts
from bench.stats import percentile
from botpsy_agent.agent.pipeline import guess_kept, words_of
from botpsy_agent.ha.client import HaClient, HaEndpoint
from botpsy_agent.ha.index import EntityIndex
from botpsy_agent.home.model import Home
from botpsy_agent.home.resolve import ResolutionError, resolve_call
from botpsy_agent.policy import Allow, Confirm, Principal, authorize, parse_policy, usable_filter
from botpsy_agent.words.recognizer import FastPath, Recognized
from demo.client import AgentClient
from demo.home_setup import confirm_http_settings, onboard, set_up_home
from demo.paths import POLICY_TEMPLATE, REPO
from demo.stack import DemoStack, ModelChoice
from tool_schemas.base import MappingContext

RESULTS = Path(__file__).parent / "results"
POLICY = parse_policy(
    "version: 1\ngroups: {admin: {ignore_exposure: true, rules: [{allow: [read, control]}]}}\n",
    "coverage-policy",
)
ADMIN = Principal.user("a" * 32, "Alex", is_admin=True)
HA_AGENT = "conversation.home_assistant"
INSTANCE = "coverage"
READS = frozenset({"get_state", "current_time", "device_timer", "nevermind", "respond"})
"""Tools that act on nothing: no targets to compare with HA's."""
NOT_TIMED = frozenset({"timer", "broadcast"})
"""Families that need a voice device (HA's agent answers them with an error without one)."""


@dataclass
class Turn:
    """One sentence said to both agents."""

    sentence: Sentence
    ours: str
    """none | right | wrong_entity | wrong_other"""
    ours_entities: frozenset[str]
    ha: str
    """none | answered | wrong_entity"""
    ha_entities: frozenset[str]
    ha_speech: str
    recognition_ms: float
    recognition_cpu_ms: float
    ha_ms: float
    guessed: bool = False
    """Read by HA's fallback reader (and asked for, by the agent's own check), not a
    template."""

    def record(self) -> dict[str, Any]:
        s = self.sentence
        data: dict[str, Any] = {
            "text": s.text,
            "family": s.family,
            "split": s.split,
            "ours": self.ours,
            **({"guessed": True} if self.guessed else {}),
            "ha": self.ha,
            "recognition_ms": round(self.recognition_ms, 2),
            "ha_ms": round(self.ha_ms, 2),
        }
        if self.ours in {"wrong_entity", "wrong_other"}:
            data["expected"] = sorted(s.entities)
            data["ours_entities"] = sorted(self.ours_entities)
        if self.ha == "wrong_entity" or (
            self.ours != "none" and self.ha != "none" and self.ours_entities != self.ha_entities
        ):
            data["ha_entities"] = sorted(self.ha_entities)
        if self.ha == "none":
            data["ha_speech"] = self.ha_speech[:160]
        return data


@dataclass
class Timed:
    """One sentence's whole answer from each agent."""

    text: str
    family: str
    ours_ms: float
    """The app's answer over MQTT: publish to the answer's arrival in the client's network
    code."""
    ours_timings: dict[str, float]
    ours_status: str
    ha_ms: float
    """HA's agent over HA's WebSocket API (a connection of its own), request to answer."""
    ours_first: bool
    at: float = 0.0
    """When it was sent to the app (monotonic, as the app's GC record)."""

    def record(self) -> dict[str, Any]:
        return {
            "at": round(self.at, 3),
            "text": self.text,
            "family": self.family,
            "ours_ms": round(self.ours_ms, 2),
            "ha_ms": round(self.ha_ms, 2),
            "ours_first": self.ours_first,
            "status": self.ours_status,
            **{f"app_{k}": round(v, 2) for k, v in self.ours_timings.items()},
        }


@dataclass
class PassRun:
    name: str
    turns: list[Turn] = field(default_factory=list)
    timed: list[Timed] = field(default_factory=list)


# --- judging ------------------------------------------------------------------------------------


def recognise(
    fast: FastPath, sentence: Sentence, language: str, home: Home, now: datetime
) -> tuple[Recognized | None, float, float]:
    """What the fast path understood, its wall and CPU ms. A guess of HA's fallback reader
    counts only where the agent would keep it (`guess_kept`), checked in that time."""
    started, cpu = time.perf_counter(), time.thread_time()
    recognized = fast.recognize(sentence.text, language, home)
    if recognized is not None and recognized.guessed:
        words = words_of(sentence.text, language, home, now)
        if not guess_kept(
            recognized.calls, words, home, lambda c: usable_filter(POLICY, ADMIN, c, now), now
        ):
            recognized = None
    ms = (time.perf_counter() - started) * 1000
    return recognized, ms, (time.thread_time() - cpu) * 1000


def judge_ours(  # noqa: PLR0911 - one verdict per way an answer can be wrong
    recognized: Recognized | None, sentence: Sentence, home: Home, now: datetime
) -> tuple[str, frozenset[str]]:
    """(verdict, entities acted on or read)."""
    none: frozenset[str] = frozenset()
    if recognized is None:
        return "none", none
    if not recognized.calls:
        if not recognized.nevermind:
            return "none", none
        tool = "respond" if recognized.intent == "HassRespond" else "nevermind"
        return ("right" if tool == sentence.tool else "wrong_other"), none
    entities: set[str] = set()
    tools, params_ok = set(), True
    for call in recognized.calls:
        try:
            resolved = resolve_call(
                home, call, MappingContext(now), usable_filter(POLICY, ADMIN, call, now)
            )
        except ResolutionError:
            return "wrong_other", none  # answered, with a refusal it did not earn
        if not isinstance(authorize(POLICY, ADMIN, resolved, now), Allow | Confirm):
            return "wrong_other", none
        entities |= set(resolved.entity_ids)
        tools.add(call.name)
        args = call.model_dump(exclude_none=True, mode="json")
        params_ok &= all(_same(args.get(k), v) for k, v in sentence.params.items())
    found = frozenset(entities)
    if not sentence.right(found):
        return "wrong_entity", found
    if tools != {sentence.tool} or not params_ok:
        return "wrong_other", found
    return "right", found


def _same(got: Any, wanted: Any) -> bool:
    if isinstance(wanted, bool) or isinstance(got, bool):
        return got is wanted
    if isinstance(wanted, int | float) and isinstance(got, int | float):
        return abs(float(got) - float(wanted)) < 1e-6
    if isinstance(wanted, str) and isinstance(got, str):
        return got.strip().casefold() == wanted.strip().casefold()
    return bool(got == wanted)


def judge_ha(sentence: Sentence, answer: dict[str, Any]) -> tuple[str, frozenset[str], str]:
    """(none | answered | wrong_entity, the entities it acted on, its speech)."""
    speech = ((answer.get("speech") or {}).get("plain") or {}).get("speech") or ""
    if answer.get("response_type") in {None, "error"}:
        return "none", frozenset(), str(speech)
    data = answer.get("data") or {}
    ids = {t.get("id") for t in data.get("success", []) if t.get("type") == "entity"}
    ids |= {t.get("id") for t in data.get("failed", []) if t.get("type") == "entity"}
    found = frozenset(i for i in ids if isinstance(i, str))
    # Questions list only the entities that matched ("which lights are on"): not compared.
    if sentence.tool not in READS and found and sentence.entities and not sentence.right(found):
        return "wrong_entity", found, str(speech)
    return "answered", found, str(speech)


async def ask_ha(client: HaClient, text: str, language: str) -> tuple[dict[str, Any], float]:
    started = time.perf_counter()
    result = await client.call(
        {"type": "conversation/process", "text": text, "language": language, "agent_id": HA_AGENT}
    )
    return (result or {}).get("response") or {}, (time.perf_counter() - started) * 1000


# --- one pass -----------------------------------------------------------------------------------


async def run_pass(
    pass_name: str,
    index: EntityIndex,
    client: HaClient,
    agent: AgentClient,
    admin_id: str,
    *,
    limit: int | None,
) -> PassRun:
    language = pass_name.split("-", 1)[0]
    run = PassRun(pass_name)
    fast = FastPath()
    fast.recognize("turn on the lights", language, index.home)  # intents load once
    await ask_ha(client, "hello", language)  # HA's agent loads its language once
    now = datetime.now(UTC)
    said = sentences(pass_name)[:limit]
    for number, sentence in enumerate(said):
        recognized, ms, cpu_ms = recognise(fast, sentence, language, index.home, now)
        ours, ours_entities = judge_ours(recognized, sentence, index.home, now)
        guessed = recognized is not None and recognized.guessed
        # Both agents act on the same home: the one that goes second may find the change
        # made, so each goes first every other sentence.
        ours_first = number % 2 == 0
        at = time.monotonic()
        if ours_first:
            app_ms, reply = await _ask_app(agent, sentence.text, admin_id, language)
            answer, ha_ms = await ask_ha(client, sentence.text, language)
        else:
            answer, ha_ms = await ask_ha(client, sentence.text, language)
            app_ms, reply = await _ask_app(agent, sentence.text, admin_id, language)
        ha, ha_entities, speech = judge_ha(sentence, answer)
        run.turns.append(
            Turn(sentence, ours, ours_entities, ha, ha_entities, speech, ms, cpu_ms, ha_ms, guessed)
        )
        if ours != "none" and ha != "none" and sentence.family not in NOT_TIMED:
            timings = reply.get("timings") or {}
            run.timed.append(
                Timed(
                    sentence.text,
                    sentence.family,
                    app_ms,
                    {k: float(v) for k, v in timings.items() if isinstance(v, int | float)},
                    str(reply.get("status")),
                    ha_ms,
                    ours_first,
                    at,
                )
            )
        if number % 50 == 49:
            print(f"[coverage] {pass_name}: {number + 1}/{len(said)}", flush=True)
    return run


async def _ask_app(
    agent: AgentClient, text: str, admin_id: str, language: str
) -> tuple[float, dict[str, Any]]:
    """The round trip to the answer's arrival in the client's network code (what the
    bench's own event loop adds after that is not the app's)."""
    started = time.monotonic()  # the clock of `Received.received`
    reply = await agent.ask(text, admin_id, language=language, timeout_s=30)
    return (agent.last_arrival - started) * 1000, reply


async def wait_for_names(index: EntityIndex, pass_name: str) -> None:
    deadline = time.monotonic() + 60
    wanted = {t.entity_id: t.name(pass_name) for t in house.things()}
    while time.monotonic() < deadline:
        home = index.home
        if all(
            home.entities.get(e) is not None and home.entities[e].name == n
            for e, n in wanted.items()
        ):
            await asyncio.sleep(2)  # HA's agent and the app rebuild their lists on the same events
            return
        await asyncio.sleep(0.2)
    raise TimeoutError(f"the index did not see the names of {pass_name} within 60 s")


# --- the run ------------------------------------------------------------------------------------


async def evaluate(passes: list[str], limit: int | None, *, stock_broker: bool) -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    with tempfile.TemporaryDirectory(prefix="botpsy-coverage-") as run_dir:
        folder = Path(run_dir)
        stack = DemoStack(
            ModelChoice(None, stand_in=True),
            print,
            run_dir=folder,
            extra_config=house.ha_yaml(),
        )
        # As docs/mqtt-api.md advises where latency matters (a stock broker holds small
        # packets back for Nagle's algorithm, ~44 ms a round trip): --stock-broker measures that.
        stack.broker.tcp_nodelay = not stock_broker
        app: subprocess.Popen[str] | None = None
        try:
            stack.broker.start()
            await stack.start_home_assistant()
            access, owner = await onboard(stack.ha_url)
            await confirm_http_settings(stack.ha_url, access)
            accounts = await set_up_home(
                stack.ha_url, access, owner, (stack.broker.host, stack.broker.port)
            )
            client = HaClient(HaEndpoint.from_base_url(stack.ha_url, accounts.token))
            index = EntityIndex(client)
            await index.start()
            await client.start()
            await client.wait_connected(15)
            await index.wait_synced(15)
            await house.place(client)
            await house.settle(client)
            app = _start_app(folder, stack, accounts.token, accounts.admin_id, accounts.child_id)
            agent = AgentClient(stack.broker.host, stack.broker.port, INSTANCE, stack.secret)
            await agent.connect()
            # HA's agent on a connection of its own: no state events ahead of its answers.
            asker = HaClient(HaEndpoint.from_base_url(stack.ha_url, accounts.token))
            await asker.start()
            await asker.wait_connected(15)
            try:
                entities = len(index.home.entities)
                print(f"[coverage] home: {entities} entities in HA", flush=True)
                runs = []
                started = time.monotonic()
                for pass_name in passes:
                    await house.rename(client, pass_name)
                    await wait_for_names(index, pass_name)
                    run = await run_pass(
                        pass_name,
                        index,
                        asker,
                        agent,
                        accounts.admin_id,
                        limit=limit,
                    )
                    runs.append(run)
                    print(f"[coverage] {pass_name}: {json.dumps(summarize(run)['all'])}")
                elapsed = time.monotonic() - started
            finally:
                await asker.stop()
                await agent.close()
                await index.stop()
                await client.stop()
        finally:
            gc_report = _stop_app(app)
            await stack.stop()
    return {
        "started": started_at,
        "commit": _commit(),
        "load_average_1min": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "home": {**house.summary(), "entities_in_ha": entities},
        "templates": {lang: template_counts(lang) for lang in sorted({p[:2] for p in passes})},
        "passes_s": round(elapsed, 1),
        "broker_tcp_nodelay": not stock_broker,
        "app_gc": gc_report,
        "passes": {
            run.name: {
                **summarize(run),
                "turns": [t.record() for t in run.turns],
                "timed": [t.record() for t in run.timed],
            }
            for run in runs
        },
    }


def _start_app(
    folder: Path, stack: DemoStack, token: str, admin_id: str, child_id: str
) -> subprocess.Popen[str]:
    data = folder / "app-data"
    data.mkdir()
    (data / "integration_secrets").write_text(stack.secret + "\n")
    policy = folder / "policy.yaml"
    policy.write_text(POLICY_TEMPLATE.read_text().format(admin_id=admin_id, child_id=child_id))
    settings = {
        "ha_url": stack.ha_url,
        "token": token,
        "broker_host": stack.broker.host,
        "broker_port": stack.broker.port,
        "instance": INSTANCE,
        "policy_file": str(policy),
        "data_dir": str(data),
    }
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'addon'}:{REPO}"}
    app = subprocess.Popen(  # noqa: S603 - this interpreter, the bench's own module
        [sys.executable, "-m", "bench.coverage.app_process", json.dumps(settings)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )
    assert app.stdout is not None
    line = app.stdout.readline()
    if line.strip() != "ready":
        app.kill()
        raise RuntimeError(f"the app did not start: {line!r}")
    return app


def _stop_app(app: subprocess.Popen[str] | None) -> dict[str, Any]:
    """Stop the app (closing its stdin); what it said about its garbage collections."""
    if app is None:
        return {}
    assert app.stdin is not None and app.stdout is not None
    app.stdin.close()
    try:
        out = app.stdout.read()
        app.wait(30)
    except subprocess.TimeoutExpired:
        app.kill()
        return {}
    for line in out.splitlines():
        if line.startswith("{"):
            return dict(json.loads(line))
    return {}


def _commit() -> str:
    """The commit measured: BOTPSY_COMMIT (script/run reads it on the host, since its root
    file system has no view of a worktree's git folder), else git's answer."""
    if os.environ.get("BOTPSY_COMMIT"):
        return os.environ["BOTPSY_COMMIT"]
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],  # noqa: S607 - git from PATH
            capture_output=True,
            text=True,
            cwd=REPO,
            check=True,
        ).stdout.strip()
    except OSError, subprocess.CalledProcessError:
        return "unknown"


# --- figures ------------------------------------------------------------------------------------


def _tally(turns: list[Turn]) -> dict[str, Any]:
    c: Counter[str] = Counter()
    for t in turns:
        c["sentences"] += 1
        c["fast_path"] += t.ours != "none"
        c["fast_path_right"] += t.ours == "right"
        c["fast_path_guessed"] += t.ours != "none" and t.guessed
        c["fast_path_guessed_right"] += t.ours == "right" and t.guessed
        c["fast_path_wrong_entity"] += t.ours == "wrong_entity"
        c["fast_path_wrong_other"] += t.ours == "wrong_other"
        c["ha"] += t.ha != "none"
        c["ha_wrong_entity"] += t.ha == "wrong_entity"
        c["both"] += t.ours != "none" and t.ha != "none"
        c["only_ha"] += t.ours == "none" and t.ha != "none"
        c["only_fast_path"] += t.ours != "none" and t.ha == "none"
        if t.ours != "none" and t.ha != "none" and t.sentence.tool not in READS and t.ha_entities:
            c["both_act"] += 1
            c["same_targets"] += t.ours_entities == t.ha_entities
    return dict(c)


def summarize(run: PassRun) -> dict[str, Any]:
    parts = {
        "all": run.turns,
        DEV: [t for t in run.turns if t.sentence.split == DEV],
        HELD_OUT: [t for t in run.turns if t.sentence.split == HELD_OUT],
    }
    families: dict[str, dict[str, Any]] = {
        family: {
            part: _tally([t for t in turns if t.sentence.family == family])
            for part, turns in parts.items()
        }
        for family in dict.fromkeys(t.sentence.family for t in run.turns)
    }
    recognition = sorted(t.recognition_ms for t in run.turns)
    cpu = sorted(t.recognition_cpu_ms for t in run.turns)
    ha = sorted(t.ha_ms for t in run.turns if t.ha != "none")
    return {
        **{part: _tally(turns) for part, turns in parts.items()},
        "families": families,
        "recognition_ms": _quantiles(recognition),
        "recognition_cpu_ms": _quantiles(cpu),
        "ha_agent_ms_answered": _quantiles(ha),
        "speed": _speed(run.timed),
        "only_ha": {
            family: [
                {"text": t.sentence.text, "split": t.sentence.split}
                for t in run.turns
                if t.sentence.family == family and t.ours == "none" and t.ha != "none"
            ]
            for family in families
        },
    }


def _quantiles(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {}
    ordered = sorted(samples)
    return {
        "n": len(ordered),
        "p50": round(percentile(ordered, 0.5), 2),
        "p95": round(percentile(ordered, 0.95), 2),
        "max": round(ordered[-1], 2),
    }


TIMING_PARTS = ("queue_ms", "fast_path_ms", "ha_ms", "total_ms")


def _speed(timed: list[Timed]) -> dict[str, Any]:
    if not timed:
        return {}
    out: dict[str, Any] = {
        "sentences": len(timed),
        "ours_whole_answer_ms": _quantiles([t.ours_ms for t in timed]),
        "ha_agent_ms": _quantiles([t.ha_ms for t in timed]),
        "mqtt_hop_ms": _quantiles([t.ours_ms - t.ours_timings.get("total_ms", 0.0) for t in timed]),
        "ours_not_done": sum(t.ours_status != "done" for t in timed),
    }
    for part in TIMING_PARTS:
        out[f"app_{part}"] = _quantiles([t.ours_timings.get(part, 0.0) for t in timed])
    rest = [
        t.ours_timings.get("total_ms", 0.0)
        - sum(t.ours_timings.get(p, 0.0) for p in TIMING_PARTS if p != "total_ms")
        for t in timed
    ]
    out["app_rest_ms"] = _quantiles(rest)
    out["slowest"] = [t.record() for t in sorted(timed, key=lambda t: -t.ours_ms)[:8]]
    return out


# --- the report ---------------------------------------------------------------------------------


def before_and_after(results: dict[str, Any], before: dict[str, Any]) -> list[str]:
    """What the fast path answers now against an earlier run of the same sentences
    (`--before FILE`). Coverage only: speed figures of runs at other times, under other
    loads, do not compare (speed before and after is measured in alternating runs)."""
    lines = [
        f"## Coverage against the run at {before['commit']} (`--before`)",
        "",
        "| pass | fast path answers, dev: before → now | held-out: before → now | "
        "HA agent answers, dev / held-out |",
        "| --- | --- | --- | --- |",
    ]
    for name, now in results["passes"].items():
        then = before["passes"].get(name)
        if then is None:
            continue
        lines.append(
            f"| {name} | {then[DEV].get('fast_path', 0)} → {now[DEV].get('fast_path', 0)} of "
            f"{now[DEV].get('sentences', 0)} | {then[HELD_OUT].get('fast_path', 0)} → "
            f"{now[HELD_OUT].get('fast_path', 0)} of {now[HELD_OUT].get('sentences', 0)} | "
            f"{now[DEV].get('ha', 0)} / {now[HELD_OUT].get('ha', 0)} |"
        )
    return [*lines, ""]


def report(
    results: dict[str, Any],
    stamp: str,
    before: dict[str, Any] | None = None,
    notes: str = "",
) -> str:
    passes = results["passes"]
    home = results["home"]
    lines = [
        f"# Fast-path coverage and speed against HA's default agent, {stamp}",
        "",
        f"`make bench ARGS=--fast-path` (bench/fast_path_coverage.py) at {results['commit']}: "
        f"a real HA process holding the demo home and the bench's own house "
        f"({home['entities']} entities of the house, {home['entities_in_ha']} in HA in all, "
        f"{home['rooms']} rooms on {home['floors']} floors; bench/coverage/home.py), the "
        "BotPsy app in a process of its own (no model), and every sentence of "
        "bench/coverage/sentences/<language>.yaml said to both: to the fast path (recognise, "
        "resolve in the admin's scope, authorise; judged by tool, exact entities and "
        "parameters) and to HA's default agent (`conversation/process`, agent "
        f"`{HA_AGENT}`; it acts on the home; an answer counts unless it is an error). Each "
        "language is said twice: with the house's names, and renamed (every device, room and "
        "floor called otherwise, aliases cleared). The passes took "
        f"{results['passes_s']} s; the machine's 1-minute load average was "
        f"{' then '.join(str(x) for x in results['load_average_1min'])} (2 cores, shared).",
        "",
        "Sentences were written for this bench (no public command set was copied). Every "
        "family's templates alternate between a **dev** part and a **held-out** part (a later "
        "round of English templates, `added:` in its file, says each one's part); the fast "
        "path's word lists may change only from dev misses, never from held-out ones.",
        "",
        "## Coverage per pass",
        "",
        "| pass | part | sentences | fast path answers | HA agent answers | both | only HA | "
        "only fast path | fast path wrong entity | fast path other mismatch | HA wrong entity "
        "| same targets where both act |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, p in passes.items():
        for part in (DEV, HELD_OUT):
            c = p[part]
            n = c.get("sentences", 0) or 1
            lines.append(
                f"| {name} | {part.replace('_', '-')} | {c.get('sentences', 0)} | "
                f"{c.get('fast_path', 0)} ({c.get('fast_path', 0) / n:.0%}) | "
                f"{c.get('ha', 0)} ({c.get('ha', 0) / n:.0%}) | {c.get('both', 0)} | "
                f"{c.get('only_ha', 0)} | {c.get('only_fast_path', 0)} | "
                f"{c.get('fast_path_wrong_entity', 0)} | {c.get('fast_path_wrong_other', 0)} | "
                f"{c.get('ha_wrong_entity', 0)} | "
                f"{c.get('same_targets', 0)} of {c.get('both_act', 0)} |"
            )
    guessed = [
        f"{name} {part.replace('_', '-')} {p[part].get('fast_path_guessed', 0)} "
        f"({p[part].get('fast_path_guessed_right', 0)} right)"
        for name, p in passes.items()
        for part in (DEV, HELD_OUT)
        if p[part].get("fast_path_guessed")
    ]
    if guessed:
        lines += [
            "",
            "Of the fast path's answers, read by HA's fallback reader (no template of ours "
            "or HA's matched; kept where the agent's check finds the words ask for every "
            "call): " + "; ".join(guessed) + ".",
        ]
    lines += ["", *_family_tables(passes), *_work_list(passes), *_speed_section(results)]
    if before is not None:
        lines += before_and_after(results, before)
    if notes:
        lines += [notes.strip(), ""]
    return "\n".join(lines) + "\n"


def _family_tables(passes: dict[str, Any]) -> list[str]:
    lines = [
        "## Per intent family",
        "",
        "Both passes of a language together; `dev / held-out` in each cell. `fast path` and "
        "`HA` are answers; `only HA` is the next work list.",
        "",
    ]
    languages: dict[str, list[dict[str, Any]]] = {}
    for name, p in passes.items():
        languages.setdefault(name.split("-", 1)[0], []).append(p)
    for language, runs in languages.items():
        lines += [
            f"### {language}",
            "",
            "| family | sentences | fast path | HA agent | both | only HA | only fast path | "
            "wrong entity (ours / HA) |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        families = list(dict.fromkeys(f for r in runs for f in r["families"]))
        for family in families:

            def cell(key: str, family: str = family, runs: list[dict[str, Any]] = runs) -> str:
                dev = sum(r["families"][family][DEV].get(key, 0) for r in runs)
                held = sum(r["families"][family][HELD_OUT].get(key, 0) for r in runs)
                return f"{dev} / {held}"

            lines.append(
                f"| {family} | {cell('sentences')} | {cell('fast_path')} | {cell('ha')} | "
                f"{cell('both')} | {cell('only_ha')} | {cell('only_fast_path')} | "
                f"{cell('fast_path_wrong_entity')} ; {cell('ha_wrong_entity')} |"
            )
        lines.append("")
    return lines


def _work_list(passes: dict[str, Any]) -> list[str]:
    lines = [
        "## What HA's agent answers and the fast path does not (the work list)",
        "",
        "Per language and family, both passes; (h) marks a held-out sentence, which no word "
        "list may be tuned on.",
        "",
    ]
    for name, p in passes.items():
        listed = {f: items for f, items in p["only_ha"].items() if items}
        if not listed:
            continue
        lines += [f"### {name}", ""]
        for family, items in listed.items():
            said = "; ".join(
                f"{i['text']}{' (h)' if i['split'] == HELD_OUT else ''}" for i in items[:12]
            )
            more = f" … and {len(items) - 12} more" if len(items) > 12 else ""
            lines.append(f"- **{family}** ({len(items)}): {said}{more}")
        lines.append("")
    return lines


def _speed_section(results: dict[str, Any]) -> list[str]:
    lines = [
        "## Speed, same run, same sentences",
        "",
        "Sentences both answered (timers and broadcasts left out: they need a voice device), "
        "each sent to the app over MQTT (signed, as the admin: the whole answer, execution in "
        "HA included, from the publish to the answer's arrival in the client's network "
        "code, a paho client driven by the bench's event loop as HA's MQTT integration drives "
        "its own; broker with `set_tcp_nodelay true` unless the run says otherwise) and to HA's "
        "agent over HA's WebSocket API (a connection of its own, request to answer), "
        "alternating which went first. `app total` is the app's own `timings.total_ms`; the "
        "MQTT hop is the client's figure less it. Recognition is the fast path alone in the "
        "bench's process (wall clock, and its CPU time).",
        "",
        "| pass | sentences | BotPsy whole answer p50 / p95 | HA agent p50 / p95 | "
        "app total p50 / p95 | fast path p50 / p95 | HA part p50 / p95 | queue p95 | "
        "MQTT hop p50 / p95 | recognition p50 / p95 / max | its CPU p50 / p95 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]

    def pq(q: dict[str, float]) -> str:
        return f"{q.get('p50', '-')} / {q.get('p95', '-')}" if q else "-"

    for name, p in results["passes"].items():
        s, rec, cpu = p["speed"], p["recognition_ms"], p["recognition_cpu_ms"]
        if not s:
            continue
        lines.append(
            f"| {name} | {s['sentences']} | {pq(s['ours_whole_answer_ms'])} | "
            f"{pq(s['ha_agent_ms'])} | {pq(s['app_total_ms'])} | {pq(s['app_fast_path_ms'])} | "
            f"{pq(s['app_ha_ms'])} | {s['app_queue_ms'].get('p95', '-')} | "
            f"{pq(s['mqtt_hop_ms'])} | {rec['p50']} / {rec['p95']} / {rec['max']} | "
            f"{pq(cpu)} |"
        )
    gc = results.get("app_gc") or {}
    if gc:
        lines += [
            "",
            f"The app's garbage collections during the run: {json.dumps(gc)}.",
        ]
    lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=None, help="only the first N sentences")
    parser.add_argument(
        "--passes", nargs="*", default=list(house.PASSES), choices=house.PASSES, help="passes"
    )
    parser.add_argument(
        "--stock-broker",
        action="store_true",
        help="Mosquitto without set_tcp_nodelay (the bench's client sets TCP_NODELAY still)",
    )
    parser.add_argument("--name", default="", help="a suffix for the results' file names")
    parser.add_argument("--before", type=Path, help="an earlier run's JSON, to compare with")
    parser.add_argument("--notes", type=Path, help="markdown appended to the report")
    parser.add_argument(
        "--render", type=Path, help="write the report again from this run's JSON (no run)"
    )
    args = parser.parse_args(argv)
    if args.render is not None:
        results = json.loads(args.render.read_text())
        stamp = results["started"][:10]
        before = json.loads(args.before.read_text()) if args.before else None
        notes = args.notes.read_text() if args.notes else ""
        args.render.with_suffix(".md").write_text(report(results, stamp, before, notes))
        print(f"[coverage] wrote {args.render.with_suffix('.md')}")
        return 0
    results = asyncio.run(evaluate(args.passes, args.limit, stock_broker=args.stock_broker))
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    stem = f"fast-path-{stamp}{'-' + args.name if args.name else ''}"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{stem}.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    before = json.loads(args.before.read_text()) if args.before else None
    notes = args.notes.read_text() if args.notes else ""
    (RESULTS / f"{stem}.md").write_text(report(results, stamp, before, notes))
    print(f"[coverage] wrote bench/results/{stem}.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
