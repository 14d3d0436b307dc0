"""Reading the audit log back: every file oldest first, filtered, one line per record.

Used by `botpsy-agent audit`. A line that is not a JSON object (there should be none; the
writer cuts off half-written lines) is counted and skipped, never fatal.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
import json
from pathlib import Path
import re
from typing import Any

from botpsy_agent.audit.log import KEEP, rotated_paths
from botpsy_agent.audit.printable import printable

_RELATIVE = re.compile(r"(\d+)\s*([smhd])")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def parse_when(text: str, now: datetime | None = None) -> datetime:
    """`2h`, `30m`, `7d` (that long ago), or an ISO time (without a zone: UTC).
    Raises ValueError with the accepted forms."""
    now = now or datetime.now(UTC)
    relative = _RELATIVE.fullmatch(text.strip())
    if relative:
        amount, unit = int(relative.group(1)), relative.group(2)
        return now - timedelta(**{_UNITS[unit]: amount})
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"{text!r} is not a time: use e.g. 30m, 2h, 7d or 2026-11-30T08:00"
        ) from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


@dataclass(frozen=True)
class AuditFilter:
    """Which records to show; every criterion given must match."""

    principal: str | None = None
    """A principal key (`user:<id>`, `mqtt:<name>`, `anonymous:anonymous`) or a part of one."""
    decision: str | None = None
    """allow / deny / confirm / none: action records decided so."""
    tool: str | None = None
    entity: str | None = None
    """An entity id or a part of one (`lock.`): actions on a matching entity."""
    outcome: str | None = None
    """An action's outcome (`contract.Outcome`: executed, refused, …): actions that ended so."""
    kinds: frozenset[str] = field(default_factory=frozenset)
    request_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    security_only: bool = False

    def matches(self, record: dict[str, Any]) -> bool:
        checks = (
            not self.kinds or record.get("kind") in self.kinds,
            self.principal is None or self.principal in _principals(record),
            self.decision is None or record.get("decision") == self.decision,
            self.tool is None or record.get("tool") == self.tool,
            self.entity is None or any(self.entity in str(e) for e in _entities(record)),
            self.outcome is None or record.get("outcome") == self.outcome,
            self.request_id is None or record.get("id") == self.request_id,
            not self.security_only or bool(record.get("security")),
        )
        return all(checks) and self._in_period(record)

    def _in_period(self, record: dict[str, Any]) -> bool:
        if self.since is None and self.until is None:
            return True
        when = _time_of(record)
        return (
            when is not None
            and (self.since is None or when >= self.since)
            and (self.until is None or when <= self.until)
        )


def _principals(record: dict[str, Any]) -> str:
    """Text to search for a principal in: its key and, if refused, the user it claimed."""
    return f"{record.get('principal') or ''} {record.get('claimed_user_id') or ''}"


def _entities(record: dict[str, Any]) -> list[Any]:
    entities = record.get("entity_ids")
    return entities if isinstance(entities, list) else []


def _time_of(record: dict[str, Any]) -> datetime | None:
    try:
        when = datetime.fromisoformat(str(record.get("time")))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


@dataclass
class AuditReader:
    """The records of one log (its rotated files included), oldest first."""

    path: Path
    keep: int = KEEP
    skipped: int = 0
    """Lines that were not JSON objects."""

    def exists(self) -> bool:
        return any(p.exists() for p in rotated_paths(self.path, self.keep))

    def records(self, where: AuditFilter | None = None) -> Iterator[dict[str, Any]]:
        where = where or AuditFilter()
        for path in rotated_paths(self.path, self.keep):
            try:
                file = path.open(encoding="utf-8", errors="replace")
            except FileNotFoundError:
                continue
            with file:
                for line in file:
                    record = self._parse(line)
                    if record is not None and where.matches(record):
                        yield record

    def _parse(self, line: str) -> dict[str, Any] | None:
        if not line.strip():
            return None
        try:
            record = json.loads(line)
        except ValueError:
            self.skipped += 1
            return None
        if not isinstance(record, dict):
            self.skipped += 1
            return None
        return record


def format_record(record: dict[str, Any]) -> str:
    """One line for people: time, kind, request id, principal, then what the kind says.
    Whatever a request put in it (ids, topics, field names) is printed escaped: one record
    is always one line (issue 25, finding 10)."""
    kind = str(record.get("kind"))
    head = f"{record.get('time', '?')} {kind:<8} {record.get('id') or '-'} "
    head += str(record.get("principal") or "-")
    describe = _DESCRIBE.get(kind, _describe_other)
    return printable(f"{head} {describe(record)}")


def _describe_request(record: dict[str, Any]) -> str:
    tail = f"on {record.get('topic')}"
    tail += " (retry)" if record.get("retry") else ""
    tail += " (dry run)" if record.get("dry_run") else ""
    return tail + (f": {record['text']!r}" if "text" in record else "")


def _describe_action(record: dict[str, Any]) -> str:
    entities = ",".join(record.get("entity_ids") or []) or "-"
    tail = (
        f"{record.get('tool')} {entities} decision={record.get('decision')} "
        f"rule={record.get('rule') or '-'} outcome={record.get('outcome')}"
    )
    return tail + (f" error={record['error']}" if record.get("error") else "")


def _describe_response(record: dict[str, Any]) -> str:
    tail = f"{record.get('status')} via {record.get('path')}"
    tail += f" error={record['error']}" if record.get("error") else ""
    tail += f" {record.get('total_ms')} ms"
    return tail + (f": {record['speech']!r}" if "speech" in record else "")


def _describe_refusal(record: dict[str, Any]) -> str:
    tail = ("SECURITY " if record.get("security") else "") + str(record.get("code"))
    if record.get("claimed_user_id"):
        tail += f" claimed user {record['claimed_user_id']}"
    return tail + f" on {record.get('topic')}: {record.get('message')}"


def _describe_other(record: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in record.items() if k not in {"time", "kind"}})


_DESCRIBE = {
    "request": _describe_request,
    "action": _describe_action,
    "response": _describe_response,
    "refused": _describe_refusal,
}
