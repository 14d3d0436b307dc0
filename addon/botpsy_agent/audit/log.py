"""The audit log: one JSON object a line, appended, rotated, bounded in size.

`data/audit/audit.jsonl` holds the newest records; when the next line would take it past
`max_bytes` it becomes `audit.jsonl.1` (the older ones move up) and the oldest beyond `keep`
is deleted, so the log never holds more than `max_bytes * (keep + 1)`. The file is created
readable by its owner only.

A write that fails (a full disk, a removed folder) never stops the app: the record is
dropped and counted, the problem is logged once, a half-written line is cut off again, and
the next record tries afresh, so the log recovers by itself when space returns. `on_health`
hears each change between writable and not.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
import errno
import itertools
import json
import logging
import os
from pathlib import Path
from typing import Any

from botpsy_agent.agent.protocol import AgentRequest, AgentResponse
from botpsy_agent.audit.door import Refusal
from botpsy_agent.audit.records import answer_records, refusal_record, request_record

_LOGGER = logging.getLogger(__name__)

FILE_NAME = "audit.jsonl"
MAX_BYTES = 4 * 1024 * 1024
KEEP = 4
"""Rotated files kept besides the current one: at most 20 MiB in all by default."""


def audit_path(data_dir: Path) -> Path:
    """Where the app keeps its audit log: `<data dir>/audit/audit.jsonl`."""
    return data_dir / "audit" / FILE_NAME


def rotated_paths(path: Path, keep: int = KEEP) -> list[Path]:
    """Every file of the log, oldest first (`audit.jsonl.<keep>` … `audit.jsonl`)."""
    return [path.with_name(f"{path.name}.{n}") for n in range(keep, 0, -1)] + [path]


class AuditLog:
    """Appends audit records; implements the front door's `DoorAudit`."""

    def __init__(
        self,
        path: Path,
        *,
        message_bodies: bool = False,
        max_bytes: int = MAX_BYTES,
        keep: int = KEEP,
        on_health: Callable[[bool, str], None] = lambda ok, detail: None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.path = path
        self.message_bodies = message_bodies
        self.max_bytes = max_bytes
        self.keep = keep
        self._on_health = on_health
        self._clock = clock
        self._fd: int | None = None
        self._size = 0
        self.written = 0
        self.dropped = 0
        """Records lost to write errors since the log was opened."""
        self.failing: OSError | None = None
        """The error of the last write, while writes fail."""

    # --- the front door's reports ------------------------------------------------------------

    def accepted(self, request: AgentRequest, topic: str, *, retry: bool = False) -> None:
        self.write(request_record(request, topic, retry=retry, bodies=self.message_bodies))

    def answered(self, request: AgentRequest, response: AgentResponse) -> None:
        for record in answer_records(request, response, bodies=self.message_bodies):
            self.write(record)

    def refused(self, refusal: Refusal) -> None:
        self.write(refusal_record(refusal))

    # --- writing -----------------------------------------------------------------------------

    def write(self, record: dict[str, Any]) -> bool:
        """Append one record (a `time` is added first); False if it could not be written."""
        line = json.dumps(
            {"time": self._clock().isoformat(timespec="milliseconds"), **record},
            ensure_ascii=False,
            separators=(",", ":"),
            default=str,
        )
        data = (line + "\n").encode("utf-8")
        try:
            self._append(data)
        except OSError as err:
            self._failed(err)
            return False
        self.written += 1
        if self.failing is not None:
            _LOGGER.info(
                "The audit log can be written again (%d record(s) were lost meanwhile)",
                self.dropped,
            )
            self.failing = None
            self._on_health(True, "audit log writable")
        return True

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def _append(self, data: bytes) -> None:
        if self._fd is not None and self._size > 0 and self._size + len(data) > self.max_bytes:
            self._rotate()
        if self._fd is None:
            self._open()
        assert self._fd is not None
        before = self._size
        try:
            written = os.write(self._fd, data)
        except OSError:
            self._cut(before)
            raise
        if written != len(data):  # a short write: the disk filled mid-line
            self._cut(before)
            raise OSError(errno.ENOSPC, "short write (no space left on device)")
        self._size += written

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._size = os.fstat(self._fd).st_size

    def _rotate(self) -> None:
        self.close()
        files = rotated_paths(self.path, self.keep)
        files[0].unlink(missing_ok=True)
        for older, newer in itertools.pairwise(files):
            if newer.exists():
                newer.replace(older)

    def _cut(self, size: int) -> None:
        """Remove a half-written line, so every line in the file is a whole record."""
        if self._fd is None:
            return
        try:
            os.ftruncate(self._fd, size)
        except OSError:
            self.close()  # reopen (and find the size) on the next write

    def _failed(self, err: OSError) -> None:
        self.dropped += 1
        if self.failing is None:
            _LOGGER.error(
                "The audit log %s cannot be written (%s); the app keeps serving and drops "
                "audit records until it can",
                self.path,
                err.strerror or err,
            )
            self._on_health(False, f"audit log not writable: {err.strerror or err}")
        self.failing = err
        self.close()
