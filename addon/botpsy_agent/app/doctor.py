"""`botpsy-agent doctor`: check what the app needs, one line each, and say what to fix.

Options, the MQTT broker, Home Assistant's API, the model file, the policy file, memory and
disk. Nothing is changed; every check runs even when an earlier one failed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
import os
from pathlib import Path
import shutil
import threading

import aiohttp
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from botpsy_agent.app.config import OptionsError, Settings, load_app_settings
from botpsy_agent.app.cpu import cpu_problem
from botpsy_agent.app.startup import ResolveError, resolve_broker
from botpsy_agent.ha import HaEndpoint, self_check
from botpsy_agent.llm import ModelFileError, read_model_info
from botpsy_agent.mqtt import BrokerSettings
from botpsy_agent.policy import PolicyError, load_policy
from botpsy_agent.weights import ModelPlan, plan_model

MB = 1024 * 1024
WORKING_MEMORY_MB = 600  # prompt snapshots, HA and MQTT state, Python itself


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""

    def line(self) -> str:
        mark = "ok  " if self.ok else "FAIL"
        text = f"[{mark}] {self.name}: {self.detail}"
        return text if self.ok or not self.fix else f"{text}\n       fix: {self.fix}"


async def diagnose(options: Path, environ: Mapping[str, str]) -> list[Check]:
    try:
        settings = load_app_settings(options, environ)
    except OptionsError as err:
        return [Check("options", False, "; ".join(err.problems), "correct the app's options")]
    checks = [Check("options", True, f"{options} is valid (instance {settings.instance})")]
    checks.append(await _mqtt(settings, environ))
    checks.append(await _home_assistant(environ))
    plan = plan_model(settings.model, settings.models_dir, settings.data_dir)
    checks.append(_model(plan))
    checks.append(_policy(settings))
    checks.append(_memory(plan))
    checks.append(_disk(settings))
    return checks


async def _mqtt(settings: Settings, environ: Mapping[str, str]) -> Check:
    try:
        async with aiohttp.ClientSession() as session:
            broker = await resolve_broker(settings, session, environ)
    except ResolveError as err:
        return Check(
            "MQTT",
            False,
            "; ".join(err.lines),
            "install and start the Mosquitto broker app, or set mqtt.host",
        )
    problem = await asyncio.to_thread(_try_connect, broker)
    where = f"{broker.host}:{broker.port}"
    if problem:
        return Check(
            "MQTT",
            False,
            f"{where}: {problem}",
            "check the broker is running and the credentials (mqtt.username / mqtt.password)",
        )
    return Check("MQTT", True, f"connected to {where}")


def _try_connect(broker: BrokerSettings) -> str | None:
    done = threading.Event()  # paho calls back on its own thread
    result: list[str | None] = []
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"botpsy-doctor-{os.getpid()}")
    if broker.username:
        client.username_pw_set(broker.username, broker.password)
    if broker.tls is not None:
        client.tls_set(ca_certs=str(broker.tls.ca_file) if broker.tls.ca_file else None)

    def connected(_c: mqtt.Client, _u: object, _f: object, reason: object, _p: object) -> None:
        failure = getattr(reason, "is_failure", False)
        result.append(f"the broker refused: {reason}" if failure else None)
        done.set()

    client.on_connect = connected
    try:
        client.connect(broker.host, broker.port, keepalive=10)
    except OSError as err:
        return f"cannot connect ({err.strerror or err})"
    client.loop_start()
    try:
        done.wait(5)
        return result[0] if result else "no answer from the broker within 5 s"
    finally:
        client.disconnect()
        client.loop_stop()


async def _home_assistant(environ: Mapping[str, str]) -> Check:
    try:
        endpoint = HaEndpoint.from_environment(environ)
    except ValueError as err:
        return Check(
            "Home Assistant",
            False,
            str(err),
            "run the app under the Supervisor, or set BOTPSY_HA_URL and BOTPSY_HA_TOKEN",
        )
    report = await self_check(endpoint, timeout_s=10)
    if not report.ok:
        assert report.problem is not None
        fix = "check that Home Assistant is running and reachable"
        if report.token_rejected:
            fix = "set homeassistant_api: true (app) or use a valid long-lived token"
        return Check("Home Assistant", False, f"{endpoint.rest_url}: {report.problem.message}", fix)
    return Check(
        "Home Assistant",
        True,
        f"{report.location_name or 'HA'} {report.version} at {endpoint.rest_url}",
    )


def _model(plan: ModelPlan, cpu_check: Callable[[], str | None] = cpu_problem) -> Check:
    if problem := cpu_check():  # before read_model_info loads llama.cpp
        return Check("model", False, problem, "run the app on a CPU the documentation lists")
    if not plan.path.exists():
        how = (
            "start the app once while online (it downloads it)"
            if plan.url
            else "copy the file there"
        )
        return Check("model", False, f"{plan.path} is missing ({plan.label})", how)
    try:
        info = read_model_info(plan.path)
    except ModelFileError as err:
        return Check("model", False, str(err), "choose another model file in the options")
    return Check(
        "model",
        True,
        f"{plan.path.name}: {info.architecture} {info.quant}, {info.size_bytes / MB:.0f} MB, "
        f"{info.tool_format.value} tool calls",
    )


def _policy(settings: Settings) -> Check:
    path = settings.policy_file
    if not path.exists():
        return Check(
            "policy", True, f"{path} does not exist yet: the app writes a first one from HA's users"
        )
    try:
        load_policy(path)
    except PolicyError as err:
        return Check(
            "policy",
            False,
            err.problems[0].render(err.source)
            + (f" (and {len(err.problems) - 1} more)" if len(err.problems) > 1 else ""),
            "correct the policy file; the app log lists every problem",
        )
    return Check("policy", True, f"{path} is valid")


def _memory(plan: ModelPlan) -> Check:
    available = _available_mb()
    model_mb = (
        plan.path.stat().st_size / MB if plan.path.exists() else (plan.approx_bytes or 0) / MB
    )
    needed = model_mb + WORKING_MEMORY_MB
    if available is None:
        return Check("memory", True, "unknown (no /proc/meminfo)")
    if available < needed:
        return Check(
            "memory",
            False,
            f"{available:.0f} MB available, about {needed:.0f} MB needed",
            "choose Q4_K_M, close other apps, or add memory",
        )
    return Check("memory", True, f"{available:.0f} MB available, about {needed:.0f} MB needed")


def _available_mb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _disk(settings: Settings) -> Check:
    folder = settings.config_dir if settings.config_dir.exists() else Path("/")
    free = shutil.disk_usage(folder).free / MB
    if free < 200:
        return Check("disk", False, f"{free:.0f} MB free in {folder}", "free some disk space")
    return Check("disk", True, f"{free:.0f} MB free in {folder}")


async def run_doctor(options: Path, environ: Mapping[str, str] | None = None) -> int:
    checks = await diagnose(options, dict(os.environ if environ is None else environ))
    for check in checks:
        print(check.line())
    failed = [c for c in checks if not c.ok]
    print("all good" if not failed else f"{len(failed)} problem(s) to fix")
    return 0 if not failed else 1
