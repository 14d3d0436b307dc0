"""The test bed's broker is ready only when its listener is: a CI run once connected too early,
after the first log line ("running mosquitto as user …") was read as the broker running."""

from __future__ import annotations

from pathlib import Path
import socket

import pytest

from devkit.mosquitto import MosquittoBroker, says_running

FIRST_LINES = (
    "1796346289: Info: running mosquitto as user: root.\n"
    "1796346289: mosquitto version 2.1.2 starting\n"
    "1796346289: Opening ipv4 listen socket on port 55247.\n"
)
RUNNING = "1796346289: mosquitto version 2.1.2 running\n"


def test_the_user_line_is_not_the_running_line() -> None:
    assert not says_running(FIRST_LINES.splitlines(keepends=True)[0])
    assert not says_running(FIRST_LINES)
    assert says_running(FIRST_LINES + RUNNING)


def test_a_restart_waits_for_its_own_running_line() -> None:
    """The log is appended to across restarts: the first start's line does not count."""
    assert not says_running(FIRST_LINES + RUNNING + FIRST_LINES)
    assert says_running(FIRST_LINES + RUNNING + FIRST_LINES + RUNNING)


@pytest.mark.usefixtures("socket_enabled")
def test_start_and_restart_return_with_the_listener_open(tmp_path: Path) -> None:
    broker = MosquittoBroker(workdir=tmp_path / "broker")
    try:
        for _ in range(5):
            broker.restart()
            with socket.create_connection((broker.host, broker.port), timeout=1):
                pass
    finally:
        broker.stop()
