"""A real `llama-server` (llama.cpp's HTTP server) on a free loopback port, for tests and the
bench.

The binary is the one `script/env` builds beside the llama-cpp-python wheel, from the same
vendored llama.cpp (`BOTPSY_NEED_SERVER=1`, set by `make test` and `make bench`); `script/run`
puts its path in `BOTPSY_LLAMA_SERVER`. `restart()` keeps the port, so a client configured
with the URL finds it again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import json
import os
from pathlib import Path
import subprocess
import time
import urllib.error
import urllib.request

from devkit.mosquitto import free_port

READY_TIMEOUT_S = 60.0


class LlamaServerMissing(RuntimeError):
    pass


def server_binary() -> Path:
    """The cached `llama-server`, or `LlamaServerMissing` saying how to build it."""
    path = Path(os.environ.get("BOTPSY_LLAMA_SERVER", ""))
    if not path.name or not path.is_file():
        raise LlamaServerMissing(
            f"llama-server is not built ({path or 'BOTPSY_LLAMA_SERVER unset'}): run "
            "`BOTPSY_NEED_SERVER=1 make env` (make test and make bench build it themselves)"
        )
    return path


@dataclass
class LlamaServer:
    """One `llama-server` process serving `model`."""

    model: Path
    log_file: Path
    context_length: int = 4096
    threads: int = 2
    api_key: str | None = field(default=None, repr=False)
    extra_args: tuple[str, ...] = ()
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LlamaServer:
        args = [
            str(server_binary()),
            "--model",
            str(self.model),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--ctx-size",
            str(self.context_length),
            "--threads",
            str(self.threads),
            "--parallel",
            "1",
            "--no-webui",
            *self.extra_args,
        ]
        if self.api_key:
            args += ["--api-key", self.api_key]
        with self.log_file.open("ab") as log:
            self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)  # noqa: S603
        self.wait_ready()
        return self

    def wait_ready(self, timeout_s: float = READY_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"llama-server exited at start; see {self.log_file}")
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=2) as answer:  # noqa: S310
                    if json.load(answer).get("status") == "ok":
                        return
            except OSError, ValueError, urllib.error.URLError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"llama-server not ready after {timeout_s:.0f} s; see {self.log_file}")

    def kill(self) -> None:
        """Die at once, as a machine that loses power (no goodbye to clients)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self.process = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(3)
            except subprocess.TimeoutExpired:  # busy in a batch: it may not stop at once
                self.process.kill()
                self.process.wait(10)
        self.process = None

    def restart(self) -> None:
        self.kill()
        self.start()
