"""A real Mosquitto broker on a free loopback port, for tests, the demo and benchmarks.

The broker gets its own config folder; `restart()` keeps the port so clients can reconnect.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import os
from pathlib import Path
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
READY_TIMEOUT_S = 10.0
STARTING_LINE = re.compile(r"mosquitto version \S+ starting")
RUNNING_LINE = re.compile(r"mosquitto version \S+ running")


def says_running(log: str) -> bool:
    """Whether the broker's log says its latest start has opened its listeners. Its first line,
    "running mosquitto as user …", does not; and a restart appends to the same log."""
    starts = list(STARTING_LINE.finditer(log))
    return bool(starts) and RUNNING_LINE.search(log, starts[-1].end()) is not None


def free_port() -> int:
    """A TCP port that is free on loopback right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class MqttUser:
    """A broker login and the topics it may use (mosquitto ACL lines)."""

    username: str
    password: str
    readwrite: tuple[str, ...] = ()
    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()


@dataclass(frozen=True)
class TlsFiles:
    """PEM files for a TLS listener."""

    certfile: Path
    keyfile: Path
    cafile: Path
    require_certificate: bool = False
    """Clients must present a certificate signed by `cafile` (mutual TLS)."""


@dataclass
class MosquittoBroker:
    """One Mosquitto process with a generated config.

    With `users` set, anonymous access is off and each user is limited by an ACL file.
    With `tls` set, the listener speaks TLS only.
    """

    workdir: Path
    users: tuple[MqttUser, ...] = ()
    tls: TlsFiles | None = None
    port: int = field(default_factory=free_port)
    host: str = "127.0.0.1"
    tcp_nodelay: bool = False
    """Mosquitto's `set_tcp_nodelay` (off by default, as in a stock broker): with it on, the
    broker does not hold small packets back for Nagle's algorithm."""
    _process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)

    @property
    def config_path(self) -> Path:
        return self.workdir / "mosquitto.conf"

    @property
    def log_path(self) -> Path:
        return self.workdir / "mosquitto.log"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def write_config(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        lines = [
            # Running as the current user avoids a privilege drop that could not read our files.
            f"user {pwd.getpwuid(os.getuid()).pw_name}",
            f"listener {self.port} {self.host}",
            "persistence false",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "log_type information",
            "connection_messages true",
        ]
        if self.tcp_nodelay:
            lines.append("set_tcp_nodelay true")
        if self.users:
            passwd = self.workdir / "passwd"
            passwd.write_text("")
            for user in self.users:
                subprocess.run(  # noqa: S603 - fixed binary, test-controlled arguments
                    [MOSQUITTO_PASSWD, "-b", str(passwd), user.username, user.password],
                    check=True,
                    capture_output=True,
                )
            acl = self.workdir / "acl"
            acl.write_text(_acl_text(self.users))
            lines += ["allow_anonymous false", f"password_file {passwd}", f"acl_file {acl}"]
        else:
            lines.append("allow_anonymous true")
        if self.tls is not None:
            lines += [
                f"certfile {self.tls.certfile}",
                f"keyfile {self.tls.keyfile}",
                f"cafile {self.tls.cafile}",
            ]
            if self.tls.require_certificate:
                lines.append("require_certificate true")
        self.config_path.write_text("\n".join(lines) + "\n")

    def start(self) -> None:
        """Start the broker and wait until it accepts connections."""
        if self.running:
            return
        self.write_config()
        log = self.log_path.open("ab")
        self._process = subprocess.Popen(  # noqa: S603 - fixed binary
            [MOSQUITTO, "-c", str(self.config_path)],
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        log.close()
        self._wait_ready()

    def stop(self) -> None:
        """Stop the broker (SIGTERM, then SIGKILL) and wait for it to exit."""
        if self._process is None:
            return
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None

    def restart(self, downtime_s: float = 0.0) -> None:
        """Stop, optionally stay down for a while, and start again on the same port."""
        self.stop()
        if downtime_s:
            time.sleep(downtime_s)
        self.start()

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def _wait_ready(self) -> None:
        # Read from the log, then confirmed by a connection: reading " running" anywhere in it
        # let a CI run connect before the listener was open, and be refused.
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.poll() is not None:
                raise RuntimeError(f"mosquitto exited at start:\n{self.log_text()}")
            if says_running(self.log_text()) and self._accepts():
                return
            time.sleep(0.02)
        raise TimeoutError(f"mosquitto not ready after {READY_TIMEOUT_S} s:\n{self.log_text()}")

    def _accepts(self) -> bool:
        """Whether the listener takes a TCP connection. A harness that blocks sockets (pytest-socket
        outside `socket_enabled`) raises something other than OSError: the log line then decides."""
        try:
            with socket.create_connection((self.host, self.port), timeout=1):
                return True
        except OSError:
            return False
        except Exception:  # a socket blocker's own error type
            return True


def _acl_text(users: tuple[MqttUser, ...]) -> str:
    blocks = []
    for user in users:
        lines = [f"user {user.username}"]
        lines += [f"topic readwrite {t}" for t in user.readwrite]
        lines += [f"topic read {t}" for t in user.read]
        lines += [f"topic write {t}" for t in user.write]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"
