"""Homes of 250 and 1,000 entities through the app as it runs (issue 28, item 4).

For each size, a generated home (`devkit.homes.realistic_home`: rooms on floors, the devices
a room of its kind has, named as people name them, HA's ids) goes beside the demo home in a
real HA: template entities and a few YAML platforms, placed in their rooms and exposed to
Assist through HA's registries before the app starts, so that the app sees exactly that many
entities exposed. The demo stack's app then runs with the real model and the options'
defaults: it sizes its context from the prompt it builds (D79) and says so at start.

Measured, per size:

* prompt tokens: the whole home's prefix as the start-up counted it (the shared system
  prompt and tools, then the listing), and each principal's first prompt as its step saw it;
* cold builds: the app prepares its people's prompts as soon as its model is ready (the
  admin's from nothing, then the others' listings on the shared part): each build as the
  engine logs it, and the time until the model is idle; then each principal's first answer;
* warm whole turns, p50/p95: the dev set's model-path cases (`--per-category`, default 1)
  through the agent over MQTT (narrowed grammar, every step, HA's execution), timed as
  `--turns` times them (request sent to answer read, a `warming_up` wait not counted);
* memory: this process's resident memory (the app and its model; HA runs apart) with both
  principals warm, its peak, and the prefix snapshots' bytes in memory.

The machine's 1-minute load average before and after each size is in the report.

Usage: make bench ARGS="--homes [--model NAME|PATH] [--sizes 250,1000] [--per-category N]
                               [--name NAME]"
Writes bench/results/homes-<model>-<date>[-<name>].json and .md.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime
import json
import logging
import os
from pathlib import Path
import re
import shutil
import sys
import tempfile
import time
from typing import Any

from bench import machine
from bench.turns import RecordingClient, model_path_cases, summarize
from botpsy_agent.agent.offer import exposed_ids
from botpsy_agent.ha.client import HaClient, HaEndpoint
from botpsy_agent.ha.index import EntityIndex
from botpsy_agent.home.model import Entity, Home
from botpsy_agent.llm.prompt import build_prefix, prefix_tokens
from botpsy_agent.llm.snapshots import PrefixCache
from botpsy_agent.policy import Principal
from demo.client import AgentClient
from demo.home_setup import ha_client
from demo.paths import POLICY_TEMPLATE
from demo.stack import INSTANCE, DemoStack, ModelChoice, stop_cleanly_on_sigterm
from devkit.homes import realistic_home
from tests.eval.cases import DEV
from tests.eval.home import Home as EvalHome
from tests.eval.layouts import DEMO_AREAS
from tests.eval.run import Evaluation, resolve_model

RESULTS = Path(__file__).parent / "results"
SIZES = (250, 1000)
COLD_REQUEST = "what would be a nice dinner tonight"
"""Nothing the fast path knows: the model path answers it (tests/reliability does the same)."""
UNITS = {
    "temperature": "°C",
    "humidity": "%",
    "moisture": "%",
    "power": "W",
    "energy": "kWh",
    "carbon_dioxide": "ppm",
    "monetary": "EUR",
}
STATES = {"temperature": "21.5", "humidity": "48", "moisture": "35", "carbon_dioxide": "620"}
SAM_READS = "      - id: sam-reads\n        allow: read\n"
NOT_THE_OFFICE = "      - id: not-the-office\n        deny: read\n        areas: [office]\n"


def bench_policy() -> str:
    """The demo's policy, but the child may not read the office: its listing is then the
    whole home less one room, not the same as the admin's, so the two principals keep two
    prefixes of about the whole home's size (with the demo's own policy they would share
    one, and memory would show one)."""
    text = POLICY_TEMPLATE.read_text()
    if SAM_READS not in text:
        raise RuntimeError("demo/policy.yaml no longer has the sam-reads rule")
    return text.replace(SAM_READS, SAM_READS + NOT_THE_OFFICE)


HEATER = "switch.bench_heating_valve"
"""The one switch every generated thermostat heats with (not exposed, not listed)."""
TARGET_SENSOR = "sensor.bench_heating_reference"


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a YAML double-quoted scalar


def ha_yaml(home: Home) -> str:
    """HA configuration that makes `home`'s entities, each with the id HA derives from its
    name: optimistic template lights, switches, fans, covers and locks; template sensors
    and binary sensors with a fixed state; generic thermostats; universal media players;
    scenes and scripts (under labelled keys: the demo's config has its own)."""
    sections: dict[str, list[str]] = {key: [] for key in (*TEMPLATE_DOMAINS, *OWN_KEYS.values())}
    light = next((e for e in home.entities if e.startswith("light.")), HEATER)
    for entity in home.entities.values():
        section, text = _entity_yaml(entity, light)
        sections[section].append(text)
    sections["switch"].append(
        _template_entry("Bench heating valve", "bench_heating_valve", OPTIMISTIC["switch"])
    )
    sections["sensor"].append(
        _template_entry(
            "Bench heating reference",
            "bench_heating_reference",
            'device_class: temperature\nunit_of_measurement: "°C"\nstate: "20.5"',
        )
    )
    blocks = "".join(
        f"  - {domain}:\n" + "\n".join(sections[domain]) + "\n"
        for domain in TEMPLATE_DOMAINS
        if sections[domain]
    )
    parts = ["# The homes bench's generated home (bench/homes.py).", f"template:\n{blocks}"]
    parts += [
        f"{key}:\n" + "\n".join(sections[key]) + "\n" for key in OWN_KEYS.values() if sections[key]
    ]
    return "\n".join(parts)


TEMPLATE_DOMAINS = ("light", "switch", "fan", "cover", "lock", "sensor", "binary_sensor")
OWN_KEYS = {
    "climate": "climate",
    "media_player": "media_player",
    "scene": "scene bench",
    "script": "script bench",
}
"""HA's configuration key of each domain not made by templates."""
OPTIMISTIC = {
    "light": "optimistic: true\nturn_on: []\nturn_off: []",
    "switch": "optimistic: true\nturn_on: []\nturn_off: []",
    "fan": "optimistic: true\nturn_on: []\nturn_off: []",
    "cover": "optimistic: true\nopen_cover: []\nclose_cover: []",
    "lock": "optimistic: true\nlock: []\nunlock: []",
}


def _template_entry(name: str, unique_id: str, body: str) -> str:
    lines = [f"name: {_q(name)}", f"unique_id: {unique_id}", *body.splitlines()]
    return "      - " + "\n        ".join(lines)


def _entity_yaml(entity: Entity, light: str) -> tuple[str, str]:
    """(the section it goes in, its configuration) for one generated entity."""
    domain, object_id = entity.entity_id.split(".", 1)
    klass = entity.device_class
    unique_id = f"bench_home_{object_id}"
    if domain in TEMPLATE_DOMAINS:
        body = OPTIMISTIC.get(domain, "")
        if domain == "sensor":
            unit = UNITS.get(klass or "")
            body = (f"unit_of_measurement: {_q(unit)}\n" if unit else "") + (
                f"state: {_q(STATES.get(klass or '', '120'))}"
            )
        elif domain == "binary_sensor":
            body = 'state: "{{ false }}"'
        if klass and domain in {"cover", "sensor", "binary_sensor"}:
            body = f"device_class: {klass}\n{body}"
        return domain, _template_entry(entity.name, unique_id, body)
    named = f"    name: {_q(entity.name)}\n    unique_id: {unique_id}\n"
    if domain == "climate":
        text = (
            f"  - platform: generic_thermostat\n{named}"
            f"    heater: {HEATER}\n    target_sensor: {TARGET_SENSOR}"
        )
    elif domain == "media_player":
        text = f"  - platform: universal\n{named}    children: []"
    elif domain == "scene":
        text = (
            f'  - name: {_q(entity.name)}\n    id: {unique_id}\n    entities:\n      {light}: "on"'
        )
    elif domain == "script":
        text = f"  {object_id}:\n    alias: {_q(entity.name)}\n    sequence: []"
    else:
        raise ValueError(f"no HA configuration for {entity.entity_id}")
    return OWN_KEYS[domain], text


@asynccontextmanager
async def app_index(url: str, token: str) -> AsyncIterator[EntityIndex]:
    """The app's own entity index on this HA, synced: what the app will see."""
    client = HaClient(HaEndpoint.from_base_url(url, token))
    index = EntityIndex(client)
    await index.start()
    await client.start()
    try:
        await client.wait_connected(30)
        await index.wait_synced(60)
        yield index
    finally:
        await index.stop()
        await client.stop()


async def arrange(stack: DemoStack, home: Home, size: int) -> dict[str, Any]:
    """Place the generated entities in their rooms (floors and areas made as needed), give
    them their aliases, and expose to Assist as many of them (rooms first, in the order
    the home grew) as make `size` exposed in all with the demo home's; the rest hidden."""
    assert stack.accounts is not None
    extras = list(home.entities.values())
    async with ha_client(stack.ha_url, stack.accounts.token) as ha:
        call = ha.call
        known = {s["entity_id"] for s in await call({"type": "get_states"})}
        missing = [e.entity_id for e in extras if e.entity_id not in known]
        if missing:
            raise RuntimeError(f"HA did not make {len(missing)} entities, e.g. {missing[:5]}")
        floors = {f["floor_id"] for f in await call({"type": "config/floor_registry/list"})}
        for floor in home.floors.values():
            if floor.floor_id not in floors:
                made = await call(
                    {
                        "type": "config/floor_registry/create",
                        "name": floor.name,
                        "level": floor.level,
                        "aliases": list(floor.aliases),
                    }
                )
                _check_id(made["floor_id"], floor.floor_id)
        areas = {a["area_id"] for a in await call({"type": "config/area_registry/list"})}
        for area in home.areas.values():
            if area.area_id not in areas:
                made = await call(
                    {
                        "type": "config/area_registry/create",
                        "name": area.name,
                        **({"floor_id": area.floor_id} if area.floor_id else {}),
                    }
                )
                _check_id(made["area_id"], area.area_id)
        for entity in extras:
            await call(
                {
                    "type": "config/entity_registry/update",
                    "entity_id": entity.entity_id,
                    "area_id": entity.area_id,
                    **({"aliases": list(entity.aliases)} if entity.aliases else {}),
                }
            )
        helpers = [HEATER, TARGET_SENSOR]
        await _expose(ha, [*helpers, *(e.entity_id for e in extras)], expose=False)
    async with app_index(stack.ha_url, stack.accounts.token) as index:
        demo = len(exposed_ids(index.home))
    shown = _exposed_first(extras, size - demo)
    async with ha_client(stack.ha_url, stack.accounts.token) as ha:
        await _expose(ha, [e.entity_id for e in shown], expose=True)
    async with app_index(stack.ha_url, stack.accounts.token) as index:
        exposed = len(exposed_ids(index.home))
    if exposed != size:
        raise RuntimeError(f"{exposed} entities exposed, not {size}")
    return {
        "entities_exposed": exposed,
        "demo_exposed": demo,
        "generated_exposed": len(shown),
        "generated_in_ha": len(extras),
        "areas": len({e.area_id for e in shown if e.area_id}),
        "floors": len({e.floor_id for e in shown if e.floor_id}),
    }


def _check_id(made: str, meant: str) -> None:
    if made != meant:
        raise RuntimeError(f"HA made {made}, not {meant}")


def _exposed_first(extras: list[Entity], count: int) -> list[Entity]:
    if count < 0:
        raise RuntimeError(f"the demo home alone exposes more than the size asked ({count})")
    return extras[:count]


async def _expose(ha: Any, entity_ids: list[str], *, expose: bool) -> None:
    for start in range(0, len(entity_ids), 200):
        await ha.call(
            {
                "type": "homeassistant/expose_entity",
                "assistants": ["conversation"],
                "entity_ids": entity_ids[start : start + 200],
                "should_expose": expose,
            }
        )


class StartLines(logging.Handler):
    """What the app says about its context (the start-up line and any reload), and each
    prefix build as the engine logs it: (tokens, seconds)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []
        self.builds: list[tuple[int, float]] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if text.startswith("Context: ") or "with a context of" in text:
            self.lines.append(text)
        elif built := _BUILT.match(text):
            self.builds.append((int(built[1]), float(built[2])))


_BUILT = re.compile(r"Prefix of (\d+) tokens built in ([\d.]+) s")


@contextmanager
def listening(handler: logging.Handler) -> Iterator[None]:
    logger = logging.getLogger("botpsy_agent")
    level = logger.level
    logger.addHandler(handler)
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def memory_mb() -> dict[str, float]:
    """This process's resident memory now and its peak (Linux)."""
    found = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in {"VmRSS", "VmHWM"}:
            found[key] = round(int(value.split()[0]) / 1024, 1)
    return {"rss_mb": found["VmRSS"], "peak_rss_mb": found["VmHWM"]}


async def cold_request(
    stack: DemoStack, client: AgentClient, principal: Principal, say: Any
) -> dict[str, Any]:
    """A principal's first model request: how long its prefix build took, and its wait;
    then its prefix as the app renders it (its offer, the planner's prompt) and the size
    of the snapshot the engine keeps of it."""
    app = stack.app
    assert app is not None and app.worker is not None and app.agent is not None
    engine = app.worker.local
    assert engine is not None
    built = engine.build_seconds()
    started = time.monotonic()
    answer = await client.ask_when_warm(COLD_REQUEST, principal.id)
    waited = time.monotonic() - started
    offer = app.agent.offer_for(principal, app.index.home, app.policies.policy, app.now())

    def prefix(_engine: object, _cancel: object) -> tuple[int, int | None]:
        rendered = prefix_tokens(engine.template, engine.tokenize, build_prefix(offer.listing))
        snapshot = engine.prefixes.get(PrefixCache.key(rendered.tokens))
        return rendered.prefix_length, None if snapshot is None else snapshot.size

    tokens, snapshot_bytes = await app.worker.run(prefix, 60)  # type: ignore[arg-type]
    steps = (answer.get("timings") or {}).get("steps") or [{}]
    row = {
        "build_s": round(engine.build_seconds() - built, 2),
        "prefix_tokens": tokens,
        "listed_entities": len(offer.entity_ids),
        "snapshot_mb": None if snapshot_bytes is None else round(snapshot_bytes / 1e6, 1),
        "first_answer_s": round(waited, 2),
        "path": answer.get("path"),
        "status": answer.get("status"),
        "error": (answer.get("error") or {}).get("code"),
        "first_step_prompt_tokens": steps[0].get("prompt_tokens"),
        "first_step_prefix_source": steps[0].get("prefix_source"),
    }
    say(f"cold: {row}")
    return row


async def measure_size(
    size: int, model: ModelChoice, per_category: int, say: Any
) -> dict[str, Any]:
    home = realistic_home(size, taken=DEMO_AREAS)
    arranged: dict[str, Any] = {}

    async def prepare(stack: DemoStack) -> None:
        say(f"arranging the generated home: {size} entities exposed in all")
        arranged.update(await arrange(stack, home, size))
        say(f"arranged: {arranged}")

    cases = model_path_cases(DEV, set(), per_category)
    run_dir = Path(tempfile.mkdtemp(prefix=f"botpsy-homes-{size}-"))
    lines = StartLines()
    load = [round(os.getloadavg()[0], 2)]
    passed: dict[str, bool] = {}
    try:
        with listening(lines):
            async with DemoStack(
                model,
                say,
                run_dir=run_dir,
                extra_config=ha_yaml(home),
                prepare_home=prepare,
                policy=bench_policy(),
            ) as stack:
                assert stack.accounts is not None and stack.app is not None
                app = stack.app
                mqtt = AgentClient(stack.broker.host, stack.broker.port, INSTANCE, stack.secret)
                await mqtt.connect()
                client = RecordingClient(mqtt)
                try:
                    people = stack.accounts
                    prepared_s = await stack.model_settled()
                    at_start = list(lines.builds)
                    cold = {
                        "admin": await cold_request(
                            stack,
                            mqtt,
                            Principal.user(people.admin_id, "admin", is_admin=True),
                            say,
                        ),
                        "child": await cold_request(
                            stack, mqtt, Principal.user(people.child_id, "child"), say
                        ),
                    }
                    async with ha_client(stack.ha_url, stack.accounts.token) as ha:

                        def names_seen(entity_id: str, name: str) -> bool:
                            entity = app.index.home.entities.get(entity_id)
                            return entity is not None and entity.name == name

                        eval_home = EvalHome(ha, names_seen=names_seen)
                        await eval_home.start()
                        evaluation = Evaluation(stack, client, eval_home)
                        for number, case in enumerate(cases, 1):
                            outcome = await evaluation.run_case(case)
                            passed[case.id] = outcome.passed
                            ms = ", ".join(f"{m:.0f}" for m in outcome.latencies_ms)
                            mark = "ok  " if outcome.passed else "miss"
                            say(f"{number:3}/{len(cases)} {mark} {case.id}: {ms} ms")
                    memory = memory_mb()
                    assert app.worker is not None and app.worker.local is not None
                    engine = app.worker.local
                    context = app.context
                    engine_figures = {
                        "context_length": engine.context_length,
                        "trained_context": engine.info.context_length,
                        "builds": engine.builds,
                        "snapshots_in_memory": len(engine.prefixes),
                        "snapshot_mb_in_memory": round(engine.prefixes.used / 1e6, 1),
                        "threads": engine.threads,
                        "load_s": round(engine.load_seconds, 2),
                    }
                    whole_prefix = None if context is None else context.prefix_tokens
                    measure = app._measure
                finally:
                    await mqtt.close()
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    load.append(round(os.getloadavg()[0], 2))
    return {
        "size": size,
        "home": arranged,
        "load_average": load,
        "context_lines": lines.lines,
        "prompt": {
            "whole_home_prefix_tokens": whole_prefix,
            "shared_tokens": None if measure is None else measure.shared_tokens,
            "listing_tokens": None
            if measure is None or whole_prefix is None
            else whole_prefix - measure.shared_tokens,
            "kv_bytes_per_token": None if measure is None else measure.kv_bytes_per_token,
        },
        "engine": engine_figures,
        "cold": cold,
        "prepared_at_start_s": round(prepared_s, 1),
        "builds_at_start": [{"tokens": t, "s": round(b, 1)} for t, b in at_start],
        "memory_two_warm_principals": memory,
        "cases": len(cases),
        "passed": sorted(c for c, ok in passed.items() if ok),
        "failed": sorted(c for c, ok in passed.items() if not ok),
        "summary": summarize(client.answers),
        "answers": [
            {"waited_ms": round(ms, 1), "path": a.get("path"), "timings": a.get("timings")}
            for ms, a in client.answers
        ],
    }


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    model, label = await resolve_model(args.model, stand_in=False)

    def say(line: str) -> None:
        print(f"[bench] {line}", flush=True)

    say(f"homes of {', '.join(map(str, args.sizes))} entities, model {label}")
    started = datetime.now(UTC).isoformat()
    if args.part is not None:  # one size, in this process (see `in_own_processes`)
        (size,) = args.sizes
        args.part.write_text(json.dumps(await measure_size(size, model, args.per_category, say)))
        return {}
    sizes = await in_own_processes(args)
    return {
        "model": label,
        "started": started,
        "machine": machine.describe(),
        "per_category": args.per_category,
        "sizes": sizes,
    }


async def in_own_processes(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each size measured by a process of its own, one after the other: a process's peak
    memory (and what its allocator keeps) would otherwise carry over to the next size."""
    results = []
    with tempfile.TemporaryDirectory(prefix="botpsy-homes-") as folder:
        for size in args.sizes:
            part = Path(folder) / f"{size}.json"
            command = [sys.executable, "-m", "bench", "--homes", "--model", args.model]
            command += ["--sizes", str(size), "--per-category", str(args.per_category)]
            process = await asyncio.create_subprocess_exec(*command, "--part", str(part))
            if await process.wait() != 0:
                raise SystemExit(f"[bench] the {size}-entity home's run failed")
            results.append(json.loads(part.read_text()))
    return results


def _row(label: str, values: list[Any]) -> str:
    return f"| {label} | " + " | ".join(str(v) for v in values) + " |"


def markdown(report: dict[str, Any]) -> str:
    sizes = report["sizes"]
    host = report["machine"]

    def fmt(value: Any, unit: str = "", digits: int = 0) -> str:
        if value is None:
            return "-"
        return f"{value:,.{digits}f}{unit}" if isinstance(value, int | float) else str(value)

    def ms_as_s(value: Any) -> str:
        return "-" if value in (None, 0) else f"{value / 1000:.2f} s"

    summaries = [s["summary"] for s in sizes]
    lines = [
        f"# Homes of {' and '.join(f'{s["size"]:,}' for s in sizes)} entities, "
        f"{report['model']}, {report['started'][:10]}",
        "",
        "Each home: a generated home (devkit/homes.realistic_home) beside the demo home in a "
        "real HA, exactly that many entities exposed to Assist, the demo stack's app with the "
        "real model and the options' defaults (the context sized from the prompt, D79). "
        f"Machine: {host['cpu_model']}, {host['logical_cpus']} logical CPUs, "
        f"{host['memory_gib']} GiB. Warm whole turns: the dev set's model-path cases "
        f"({report['per_category']} per category) as `--turns` times them.",
        "",
        "| | " + " | ".join(f"{s['size']:,} entities" for s in sizes) + " |",
        "| --- | " + " | ".join("---" for _ in sizes) + " |",
        _row(
            "load average before / after (1 min)",
            [f"{s['load_average'][0]} / {s['load_average'][-1]}" for s in sizes],
        ),
        _row(
            "areas / floors of the generated part",
            [f"{s['home'].get('areas')} / {s['home'].get('floors')}" for s in sizes],
        ),
        _row(
            "prompt prefix, whole home (tokens)",
            [fmt(s["prompt"]["whole_home_prefix_tokens"]) for s in sizes],
        ),
        _row(
            "of which shared (system, tools) / listing",
            [
                f"{fmt(s['prompt']['shared_tokens'])} / {fmt(s['prompt']['listing_tokens'])}"
                for s in sizes
            ],
        ),
        _row("context chosen (tokens)", [fmt(s["engine"]["context_length"]) for s in sizes]),
        _row(
            "admin's prefix (entities listed), snapshot",
            [
                f"{fmt(s['cold']['admin']['prefix_tokens'])} tokens "
                f"({fmt(s['cold']['admin']['listed_entities'])}), "
                f"{fmt(s['cold']['admin']['snapshot_mb'], ' MB', 1)}"
                for s in sizes
            ],
        ),
        _row(
            "child's prefix (entities listed), snapshot",
            [
                f"{fmt(s['cold']['child']['prefix_tokens'])} tokens "
                f"({fmt(s['cold']['child']['listed_entities'])}), "
                f"{fmt(s['cold']['child']['snapshot_mb'], ' MB', 1)}"
                for s in sizes
            ],
        ),
        _row(
            "cold prefix builds at start: tokens evaluated in (the first: shared part + "
            "listing; the others: a listing on the shared part)",
            [
                "; ".join(f"{fmt(b['tokens'])} in {b['s']} s" for b in s["builds_at_start"]) or "-"
                for s in sizes
            ],
        ),
        _row(
            "until the model is idle after start (all people's prompts ready)",
            [fmt(s["prepared_at_start_s"], " s", 1) for s in sizes],
        ),
        _row(
            "first answer, admin / child (after the start's builds)",
            [
                f"{fmt(s['cold']['admin']['first_answer_s'], ' s', 1)} / "
                f"{fmt(s['cold']['child']['first_answer_s'], ' s', 1)}"
                for s in sizes
            ],
        ),
        _row("warm model-path turns measured", [m.get("turns", 0) for m in summaries]),
        _row(
            "warm whole turn p50 / p95",
            [
                f"{ms_as_s(m.get('whole_turn_p50_ms'))} / {ms_as_s(m.get('whole_turn_p95_ms'))}"
                for m in summaries
            ],
        ),
        _row("model steps per turn", [m.get("steps_per_turn", "-") for m in summaries]),
        _row(
            "median step: prompt / generation",
            [
                f"{fmt((m.get('step_median') or {}).get('prompt_ms'), ' ms')} / "
                f"{fmt((m.get('step_median') or {}).get('generation_ms'), ' ms')}"
                for m in summaries
            ],
        ),
        _row(
            "RSS with two warm principals (peak)",
            [
                f"{fmt(s['memory_two_warm_principals']['rss_mb'], ' MB')} "
                f"({fmt(s['memory_two_warm_principals']['peak_rss_mb'], ' MB')})"
                for s in sizes
            ],
        ),
        _row(
            "prefix snapshots in memory",
            [
                f"{s['engine']['snapshots_in_memory']}, "
                f"{fmt(s['engine']['snapshot_mb_in_memory'], ' MB', 1)}"
                for s in sizes
            ],
        ),
        _row(
            "first answers, admin / child (status)",
            [
                " / ".join(
                    f"{s['cold'][who]['status']}"
                    + (f" {s['cold'][who]['error']}" if s["cold"][who].get("error") else "")
                    for who in ("admin", "child")
                )
                for s in sizes
            ],
        ),
        _row("cases passed (HA-judged)", [f"{len(s['passed'])} of {s['cases']}" for s in sizes]),
        "",
        "What the app said about its context at start:",
        "",
        *[
            f"* {s['size']:,}: " + " / ".join(f"`{line}`" for line in s["context_lines"])
            for s in sizes
        ],
        "",
        "RSS is this process's: the app with its model (HA, Mosquitto and the eval's HA client "
        "run apart, except the eval's MQTT and HA clients, a few MB). The issue's targets: cold "
        "prefix ≤ 30 s for 250 entities; memory with two warm principals ≤ 1.2 GB (0.5B).",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog='make bench ARGS="--homes"', description=__doc__)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b", help="a test-bed name or a path")
    parser.add_argument(
        "--sizes",
        type=lambda text: tuple(int(n) for n in text.split(",")),
        default=SIZES,
        help="entities exposed in all, comma-separated (default 250,1000)",
    )
    parser.add_argument("--per-category", type=int, default=1)
    parser.add_argument("--name", help="appended to the result file's name")
    parser.add_argument("--part", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    stop_cleanly_on_sigterm()
    report = asyncio.run(measure(args))
    if args.part is not None:
        return 0
    short = re.sub(r"[^A-Za-z0-9._-]+", "-", report["model"].split(" ", 1)[0])
    stem = f"homes-{short}-{report['started'][:10]}" + (f"-{args.name}" if args.name else "")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / f"{stem}.md").write_text(markdown(report))
    print(markdown(report))
    print(f"[bench] written: {RESULTS / stem}.json and .md")
    return 0
