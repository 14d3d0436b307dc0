"""`make demo` end to end: Mosquitto, a real Home Assistant process with the demo home, the
app with the generated stand-in model (no internet here), over the real MQTT path."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
import re
import signal
import subprocess
import sys
import threading
import time

import psutil
import pytest

REPO = Path(__file__).resolve().parents[2]


def demo(*args: str, stdin: str | None = None, run_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BOTPSY_DEMO_RUN": str(run_dir)}
    return subprocess.run(
        [sys.executable, "-m", "demo", "--stand-in", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env=env,
        check=False,
    )


@pytest.mark.usefixtures("socket_enabled")
def test_once_turns_on_the_kitchen_light_in_a_real_home_assistant(tmp_path: Path) -> None:
    result = demo("--once", "turn on the kitchen light", "--json", run_dir=tmp_path / "run")
    assert result.returncode == 0, result.stdout + result.stderr
    answer = json.loads(result.stdout[result.stdout.index("{") : result.stdout.rindex("}") + 1])
    assert answer["status"] == "done"
    (action,) = answer["actions"]
    assert (action["tool"], action["entity_ids"], action["outcome"]) == (
        "turn_on",
        ["light.kitchen"],
        "executed",
    )
    # What HA reported after the call: the light is on in the real HA process.
    states = {
        s["entity_id"]: s["state"] for a in action["result"]["actions"] for s in a.get("states", [])
    }
    assert states == {"light.kitchen": "on"}
    # The summary gives the whole turn as the user waited, by path.
    assert re.search(r"whole turns: fast path 1 turns, p50 \d+ ms, p95 \d+ ms", result.stdout)
    assert "stopping Home Assistant" in result.stdout


@pytest.mark.usefixtures("socket_enabled")
def test_a_second_run_answers_from_the_first_runs_prefix_snapshots(tmp_path: Path) -> None:
    """The run folder starts afresh each time but for the model's snapshots: the same home
    and model restart warm. Judged by the engine's own counters and the step's figures."""
    request = ("--once", "what would be a nice dinner tonight", "--timings")
    first = demo(*request, run_dir=tmp_path / "run")
    assert first.returncode in {0, 1}, first.stdout + first.stderr  # random words: any answer
    assert re.search(r"model: [1-9]\d* prefix builds", first.stdout), first.stdout
    assert "⏱ step 0: " in first.stdout  # --timings: each model step's breakdown

    second = demo(*request, "--json", run_dir=tmp_path / "run")
    assert second.returncode in {0, 1}, second.stdout + second.stderr
    assert re.search(r"model: 0 prefix builds, [1-9]\d* snapshots restored", second.stdout)
    out = second.stdout
    answer = json.loads(out[out.index("{") : out.rindex("}") + 1])
    assert answer["path"] == "model", answer
    assert answer["timings"]["steps"][0]["prefix_source"] == "snapshot", answer["timings"]


@pytest.mark.usefixtures("socket_enabled")
def test_the_prompt_refuses_the_child_and_asks_the_admin(tmp_path: Path) -> None:
    lines = "/user child\nunlock the front door\n/user admin\nunlock the front door\nno\n/quit\n"
    result = demo(stdin=lines, run_dir=tmp_path / "run")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    child = out[out.index("you (child, mqtt)> ") : out.index("now speaking as admin")]
    assert "Sorry, that's not allowed for you with Front door." in child
    assert "[refused" in child and "rule no-locks-for-sam" in child
    admin = out[out.index("now speaking as admin") :]
    assert "Do you really want to unlock Front door?" in admin
    assert "[needs_confirmation" in admin
    assert "OK, I won't." in admin
    assert "executed" not in out  # nothing was unlocked


@pytest.mark.usefixtures("socket_enabled")
def test_the_dashboards_assist_reaches_the_app_through_our_integration(tmp_path: Path) -> None:
    """The demo adds our integration (pairing code and all); HA's conversation API with its
    agent turns the light on, and the app, asked over MQTT, sees it on in HA."""
    lines = "/via assist\nturn on the kitchen light\n/via mqtt\nis the kitchen light on\n/quit\n"
    result = demo(stdin=lines, run_dir=tmp_path / "run")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "adding the BotPsy integration to Home Assistant" in out
    via_assist = out[out.index("you (admin, assist)> ") : out.index("requests now go via mqtt")]
    assert "assist> Turned on Kitchen light." in via_assist
    assert "[action_done · via HA's Assist" in via_assist
    # A yes/no question gets its answer (the light is on: Assist just turned it on).
    assert "botpsy> Yes, Kitchen light is on." in out[out.index("requests now go via mqtt") :]
    assert "Security event" not in out + result.stderr  # the integration's test is expected


AS_A_BACKGROUND_JOB = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "os.execv(sys.executable, [sys.executable, '-m', 'demo', '--stand-in'])"
)
"""The demo started with SIGINT ignored, as a script's background job is (POSIX)."""


@pytest.mark.usefixtures("socket_enabled")
def test_ctrl_c_at_the_prompt_stops_everything_and_leaves_no_process(tmp_path: Path) -> None:
    """Also when started with SIGINT ignored (`AS_A_BACKGROUND_JOB`): it sat at its prompt,
    Ctrl-C unheard, in a `make test` run in the background."""
    env = {**os.environ, "BOTPSY_DEMO_RUN": str(tmp_path / "run")}
    demo_process = subprocess.Popen(
        [sys.executable, "-c", AS_A_BACKGROUND_JOB],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=REPO,
        env=env,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    # Its output is read all along, timed, as a terminal does: a full pipe must not be what
    # holds it, and a failure shows how far the stop got.
    started = time.monotonic()
    lines: list[str] = []
    prompted = threading.Event()

    def read_output() -> None:
        assert demo_process.stdout is not None
        for line in demo_process.stdout:
            lines.append(f"{time.monotonic() - started:6.1f} s  {line}")
            if "type a request" in line:
                prompted.set()

    reader = threading.Thread(target=read_output, daemon=True)
    reader.start()
    children: list[psutil.Process] = []
    try:
        assert prompted.wait(timeout=300), "".join(lines)
        children = psutil.Process(demo_process.pid).children(recursive=True)
        assert len(children) >= 2  # Home Assistant and Mosquitto
        assert "mosquitto" in {child.name() for child in children}
        lines.append(f"{time.monotonic() - started:6.1f} s  (Ctrl-C)\n")
        os.killpg(demo_process.pid, signal.SIGINT)  # what Ctrl-C in a terminal sends
        # stdin stays open, as a terminal's does: an end of input must not be what stops it.
        # The demo's own bounds: the app 20 s, HA 30 s, Mosquitto 5 s.
        try:
            demo_process.wait(timeout=90)
        except subprocess.TimeoutExpired:
            # The stacks of its threads (demo/__main__.py registers SIGUSR1) say what it
            # waits on.
            os.kill(demo_process.pid, signal.SIGUSR1)
            time.sleep(2)
            pytest.fail("the demo did not stop within 90 s of Ctrl-C:\n" + "".join(lines))
    finally:
        if demo_process.poll() is None:
            os.killpg(demo_process.pid, signal.SIGKILL)
            demo_process.wait()
            for child in children:  # its HA and Mosquitto run in sessions of their own
                with contextlib.suppress(psutil.NoSuchProcess):
                    child.kill()
        reader.join(timeout=5)
        for stream in (demo_process.stdin, demo_process.stdout):
            if stream is not None:
                stream.close()
    rest = "".join(lines)
    assert demo_process.returncode == 130, rest
    assert "stopping Home Assistant" in rest and "stopping Mosquitto" in rest
    _, alive = psutil.wait_procs(children, timeout=5)
    assert alive == []
