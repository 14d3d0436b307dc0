"""`python -m botpsy_agent health`: the image's HEALTHCHECK, run as the real entry point."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
import subprocess
import sys
import time

from botpsy_agent.app.health import HealthState, check_health
from tests.ha_bridge import wait_until


def run_health(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "botpsy_agent", "health", "--file", str(path), *extra],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def ready(state: HealthState) -> None:
    state.update(model_loaded=True, detail="loaded BotPsy-0.8B-Q8_0.gguf")
    state.update(mqtt_connected=True)
    state.update(ha_connected=True, detail="ready")


def test_healthy_only_when_model_mqtt_and_ha_are_up(tmp_path: Path) -> None:
    path = tmp_path / "run" / "health.json"
    state = HealthState(path)
    state.update(detail="downloading BotPsy-0.8B-Q8_0.gguf: 43 %")
    result = run_health(path)
    assert result.returncode == 1
    assert result.stdout.strip() == (
        "unhealthy: model not loaded, MQTT not connected, Home Assistant not connected "
        "(downloading BotPsy-0.8B-Q8_0.gguf: 43 %)"
    )

    ready(state)
    result = run_health(path)
    assert result.returncode == 0
    assert result.stdout.strip() == (
        "healthy: model loaded, MQTT connected, Home Assistant connected (ready)"
    )

    state.update(mqtt_connected=False, detail="MQTT connection lost; reconnecting")
    result = run_health(path)
    assert result.returncode == 1
    assert result.stdout.strip() == (
        "unhealthy: MQTT not connected (MQTT connection lost; reconnecting)"
    )


def test_a_stale_file_is_unhealthy(tmp_path: Path) -> None:
    path = tmp_path / "health.json"
    ready(HealthState(path, clock=lambda: time.time() - 120))
    result = run_health(path)
    assert result.returncode == 1
    assert result.stdout.startswith("unhealthy: status file is 12")
    assert result.stdout.strip().endswith("s old (the service stopped updating it)")
    assert run_health(path, "--max-age", "300").returncode == 0


def test_no_file_or_a_dead_writer_is_unhealthy(tmp_path: Path) -> None:
    path = tmp_path / "health.json"
    result = run_health(path)
    assert result.returncode == 1
    assert result.stdout.strip() == (
        f"unhealthy: no status file at {path} (the service has not started yet)"
    )

    state = HealthState(path)
    ready(state)
    data = json.loads(path.read_text())
    finished = subprocess.Popen(["true"])  # a process that has exited
    finished.wait()
    data["pid"] = finished.pid
    path.write_text(json.dumps(data))
    verdict = check_health(path)
    assert not verdict.healthy
    assert verdict.reason == f"the service (pid {finished.pid}) is not running"


def test_the_file_is_replaced_whole_and_only_on_change(tmp_path: Path) -> None:
    path = tmp_path / "health.json"
    times = iter([100.0, 200.0, 300.0])
    state = HealthState(path, clock=lambda: next(times))
    state.update(detail="starting")
    first = json.loads(path.read_text())
    state.update(detail="starting")  # nothing changed: not rewritten
    assert json.loads(path.read_text()) == first
    assert first["updated"] == 100.0
    assert first["pid"] == os.getpid()
    state.beat()
    assert json.loads(path.read_text())["updated"] == 200.0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["health.json"]  # no temp files left
    assert oct(path.stat().st_mode & 0o777) == "0o644"


async def test_beat_forever_keeps_the_file_fresh(tmp_path: Path) -> None:
    path = tmp_path / "health.json"
    clock = iter(range(1000))
    state = HealthState(path, clock=lambda: float(next(clock)))
    task = asyncio.create_task(state.beat_forever(interval=0.01))
    await wait_until(lambda: state.snapshot.updated >= 3)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert json.loads(path.read_text())["updated"] >= 3


def test_serve_with_missing_options_stops_with_one_clear_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "botpsy_agent", "serve", "--options", str(tmp_path / "nope.json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if " ERROR " in line]
    assert len(errors) == 1, result.stderr
    assert "nope.json: cannot read" in errors[0]
