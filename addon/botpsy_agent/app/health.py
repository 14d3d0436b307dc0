"""Is the service ready? A status file the service keeps, and the check that reads it.

The service calls `HealthState.update(...)` whenever the model, the MQTT connection or the
Home Assistant connection changes, and `beat()` now and then; each call rewrites a small
JSON file atomically (write, then rename). The image's `HEALTHCHECK` runs
`python -m botpsy_agent health`, which reads that file in a separate, short-lived process:
healthy (exit 0) only when all three are up, the file is fresh and its writer still runs.

The Supervisor keeps the app in "starting" until the container is healthy, and restarts an
unhealthy one when the user turned the watchdog on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
import json
import logging
import os
from pathlib import Path
import tempfile
import time
from typing import Final

_LOGGER = logging.getLogger(__name__)
RUN_DIR_ENV: Final = "BOTPSY_RUN_DIR"
DEFAULT_RUN_DIR: Final = Path("/run/botpsy")
HEALTH_FILE_NAME: Final = "health.json"
BEAT_INTERVAL_S: Final = 15.0
HEALTH_MAX_AGE_S: Final = 60.0
"""A status file older than this means the service stopped updating it (hung or gone)."""


def default_health_path() -> Path:
    """`$BOTPSY_RUN_DIR/health.json` (the image sets the variable), else under /run/botpsy."""
    return Path(os.environ.get(RUN_DIR_ENV) or DEFAULT_RUN_DIR) / HEALTH_FILE_NAME


@dataclass(frozen=True)
class HealthSnapshot:
    """What the service last reported about itself."""

    model_loaded: bool = False
    mqtt_connected: bool = False
    ha_connected: bool = False
    detail: str = "starting"
    """What it is doing or waiting for, for people: "downloading the model (43 %)"."""
    model_downloading: bool = False
    """The model file is being downloaded (a first start): healthy meanwhile, so the
    Supervisor's start does not wait for a download of minutes, nor its watchdog end it."""
    pid: int = 0
    updated: float = 0.0
    """Wall-clock time (Unix seconds) of the last write."""

    @property
    def ready(self) -> bool:
        model_coming = self.model_loaded or self.model_downloading
        return model_coming and self.mqtt_connected and self.ha_connected

    def missing(self) -> list[str]:
        """The parts that are not up yet, in words."""
        parts = (
            (self.model_loaded or self.model_downloading, "model not loaded"),
            (self.mqtt_connected, "MQTT not connected"),
            (self.ha_connected, "Home Assistant not connected"),
        )
        return [text for up, text in parts if not up]


class HealthState:
    """The service's side: holds the current snapshot and writes it on every change."""

    def __init__(
        self,
        path: Path | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = path or default_health_path()
        self._clock = clock
        self._snapshot = HealthSnapshot(pid=os.getpid())
        self.write_error: OSError | None = None
        """Why the file could not be written last time (a full disk); None when it could."""

    @property
    def snapshot(self) -> HealthSnapshot:
        return self._snapshot

    def update(
        self,
        *,
        model_loaded: bool | None = None,
        mqtt_connected: bool | None = None,
        ha_connected: bool | None = None,
        detail: str | None = None,
        model_downloading: bool | None = None,
    ) -> None:
        """Change what is given; the file is rewritten only when something changed."""
        current = self._snapshot
        changed = replace(
            current,
            model_downloading=(
                current.model_downloading if model_downloading is None else model_downloading
            ),
            model_loaded=current.model_loaded if model_loaded is None else model_loaded,
            mqtt_connected=current.mqtt_connected if mqtt_connected is None else mqtt_connected,
            ha_connected=current.ha_connected if ha_connected is None else ha_connected,
            detail=current.detail if detail is None else detail,
        )
        if changed != current or current.updated == 0.0:
            self._write(changed)

    def beat(self) -> None:
        """Rewrite the file unchanged, so the check sees the service is alive."""
        self._write(self._snapshot)

    async def beat_forever(self, interval: float = BEAT_INTERVAL_S) -> None:
        """Beat every `interval` seconds until cancelled (run it as a task)."""
        while True:
            self.beat()
            await asyncio.sleep(interval)

    def _write(self, snapshot: HealthSnapshot) -> None:
        """Keep the snapshot; write the file if the disk lets us (the next beat retries, and
        a file that stays unwritten goes stale, which the check reports)."""
        self._snapshot = replace(snapshot, updated=self._clock())
        try:
            write_atomically(self.path, json.dumps(asdict(self._snapshot), sort_keys=True))
        except OSError as err:
            if self.write_error is None:
                _LOGGER.error("Cannot write the health file %s: %s", self.path, err.strerror or err)  # noqa: TRY400
            self.write_error = err
            return
        if self.write_error is not None:
            _LOGGER.info("The health file %s is written again", self.path)
            self.write_error = None


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` so a reader sees the old or the new file, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    temporary = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
        temporary.chmod(0o644)  # the check may run as another user
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class Verdict:
    healthy: bool
    reason: str

    def line(self) -> str:
        return f"{'healthy' if self.healthy else 'unhealthy'}: {self.reason}"


def check_health(
    path: Path,
    *,
    now: float | None = None,
    max_age: float = HEALTH_MAX_AGE_S,
    pid_alive: Callable[[int], bool] | None = None,
) -> Verdict:
    """Judge the status file at `path`: ready, fresh, and written by a running process."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        snapshot = HealthSnapshot(**raw)
    except FileNotFoundError:
        return Verdict(False, f"no status file at {path} (the service has not started yet)")
    except (OSError, ValueError, TypeError) as err:
        return Verdict(False, f"unreadable status file {path}: {err}")
    age = (time.time() if now is None else now) - snapshot.updated
    if age > max_age:
        return Verdict(False, f"status file is {age:.0f} s old (the service stopped updating it)")
    if not (pid_alive or _pid_alive)(snapshot.pid):
        return Verdict(False, f"the service (pid {snapshot.pid}) is not running")
    if not snapshot.ready:
        return Verdict(False, f"{', '.join(snapshot.missing())} ({snapshot.detail})")
    model = "model downloading" if snapshot.model_downloading else "model loaded"
    return Verdict(True, f"{model}, MQTT connected, Home Assistant connected ({snapshot.detail})")


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, and belongs to another user
    return True
