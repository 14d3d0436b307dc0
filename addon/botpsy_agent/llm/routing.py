"""Which engine serves the next model job: the model server while it is healthy, else the
local model (if one is configured).

The server is probed when the worker starts and every `probe_interval_s` (`/health`); a
request that finds it unreachable or too slow marks it down at once. While it is down jobs
go to the local model; the first good probe brings traffic back. The choice is made per
job, before it starts, so one job never mixes the two (their tokenizers may differ).
"""

from __future__ import annotations

import logging
import threading
from typing import Literal

from botpsy_agent.llm.engine import Engine, EngineError
from botpsy_agent.llm.llama_cpp import LlamaEngine
from botpsy_agent.llm.llama_server import ServerClient, ServerEngine, ServerSettings, probe
from botpsy_agent.llm.model_info import ModelFileError

_LOGGER = logging.getLogger(__name__)
SERVER_PROBE_INTERVAL_S = 30.0

type EngineKind = Literal["server", "local"]


class EngineRouter:
    """The model server and the local model; says which serves now."""

    def __init__(
        self,
        server: ServerSettings | None,
        local: LlamaEngine | None,
        *,
        probe_interval_s: float = SERVER_PROBE_INTERVAL_S,
    ) -> None:
        self.local = local
        self.probe_interval_s = probe_interval_s
        self._client = None if server is None else ServerClient(server)
        self._settings = server
        self.server: ServerEngine | None = None
        """Made at the first good probe (it reads the server's model and template)."""
        self._up: bool | None = None
        """None before the first probe."""
        self.problem: str | None = None
        """Why the server does not serve now (no key in it), or None."""
        self.switches = 0
        """Changes of the serving engine since start (tests and stats)."""
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def configured(self) -> bool:
        return self._client is not None

    def start(self) -> None:
        """Probe once now, then every `probe_interval_s` on a thread of its own."""
        if self._client is None:
            return
        self.probe()
        # A daemon: a probe holds nothing, and one stuck on a silent server must not hold
        # the process past its stop.
        self._thread = threading.Thread(
            target=self._probe_forever, name="botpsy-server-probe", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(5.0)
            self._thread = None

    def serving(self) -> tuple[EngineKind, Engine] | None:
        """The engine for the next job, or None when neither is available."""
        with self._lock:
            if self._up and self.server is not None:
                return "server", self.server
        if self.local is not None:
            return "local", self.local
        return None

    @property
    def serving_kind(self) -> EngineKind | None:
        chosen = self.serving()
        return None if chosen is None else chosen[0]

    def probe(self) -> bool:
        """One health probe; True when the server serves afterwards."""
        client = self._client
        assert client is not None and self._settings is not None
        problem = probe(client)
        if problem is None and self.server is None:
            try:
                self.server = ServerEngine(self._settings, client)
            except (EngineError, ModelFileError) as err:
                problem = str(err)
        self._set(problem)
        return problem is None

    def failed(self, problem: str) -> None:
        """A job found the server down or too slow: off until a probe finds it well."""
        self._set(problem)

    def _set(self, problem: str | None) -> None:
        with self._lock:
            was_up = self._up
            self._up = problem is None
            self.problem = problem
        if was_up is (problem is None):
            return
        self.switches += 1
        if problem is None:
            _LOGGER.info("The model server at %s serves the model", self._origin)
        elif self.local is not None:
            _LOGGER.warning("The model server is down (%s); the local model serves", problem)
        else:
            _LOGGER.warning("The model server is down (%s); no local model to serve", problem)

    @property
    def _origin(self) -> str:
        return "" if self._client is None else self._client.origin

    def _probe_forever(self) -> None:
        while not self._stopped.wait(self.probe_interval_s):
            self.probe()
