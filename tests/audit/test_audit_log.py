"""The audit log: whole JSON lines, rotated within its size bound, free of secrets, bodies
only when asked; `botpsy-agent audit` prints and filters it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
import json
from pathlib import Path

import pytest

from botpsy_agent.__main__ import main
from botpsy_agent.agent.protocol import (
    ActionReport,
    AgentRequest,
    AgentResponse,
    ErrorInfo,
    Outcome,
    Path as AnswerPath,
    Status,
)
from botpsy_agent.audit.door import Refusal
from botpsy_agent.audit.log import AuditLog, rotated_paths
from botpsy_agent.audit.read import AuditFilter, AuditReader, format_record, parse_when
from botpsy_agent.policy import Principal
from tool_schemas.redact import redact

SECRET_TEXT = "tell grandma the door code is 4711"
START = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)


class SteppingClock:
    """A clock the test moves: one second per record."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def request(principal: Principal, request_id: str = "r1") -> AgentRequest:
    return AgentRequest(request_id, SECRET_TEXT, principal, conversation_id="c1")


def response(request_id: str = "r1") -> AgentResponse:
    return AgentResponse(
        request_id,
        Status.NEEDS_CONFIRMATION,
        speech=f"Send '{SECRET_TEXT}'?",
        actions=[
            ActionReport(
                "send_message",
                {"recipient": "notify.grandma", "message": SECRET_TEXT, "title": "Door"},
                entity_ids=["notify.grandma"],
                decision="confirm",
                rule="confirm.messages_outside_household",
                outcome=Outcome.PENDING_CONFIRMATION,
            ),
            ActionReport(
                "control_lock",
                {"entity_id": ["lock.back_door"], "action": "unlock"},
                entity_ids=["lock.back_door"],
                decision="deny",
                rule="no-locks-for-users",
                outcome=Outcome.REFUSED,
                error=ErrorInfo("denied_by_rule", "control of lock.back_door is denied"),
            ),
        ],
        path=AnswerPath.MODEL,
    )


def write_a_conversation(log: AuditLog) -> None:
    minji = Principal.user("minji", "Min-ji")
    log.accepted(request(minji), "botpsy/home/request")
    log.answered(request(minji), response())
    log.refused(
        Refusal(
            "botpsy/home/request",
            "bad_signature",
            "the signature does not match",
            "r2",
            claimed_user_id="daniel",
            security=True,
        )
    )


def test_records_say_who_what_rule_and_outcome_without_bodies(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl", clock=SteppingClock())
    write_a_conversation(log)
    text = log.path.read_text()
    assert SECRET_TEXT not in text and "4711" not in text and "Door" not in text
    request_line, message, lock, answer, refused = [json.loads(x) for x in text.splitlines()]
    assert request_line["kind"] == "request" and "text" not in request_line
    assert message["arguments"] == {
        "recipient": "notify.grandma",
        "message": f"<{len(SECRET_TEXT)} chars>",
        "title": "<4 chars>",
    }
    assert (message["decision"], message["rule"], message["outcome"]) == (
        "confirm",
        "confirm.messages_outside_household",
        "pending_confirmation",
    )
    assert lock["arguments"] == {"entity_id": ["lock.back_door"], "action": "unlock"}
    assert (lock["decision"], lock["rule"], lock["error"]) == (
        "deny",
        "no-locks-for-users",
        "denied_by_rule",
    )
    assert answer["status"] == "needs_confirmation" and "speech" not in answer
    assert refused["security"] is True and refused["claimed_user_id"] == "daniel"
    assert (log.path.stat().st_mode & 0o777) == 0o600


def test_message_bodies_only_when_the_option_is_on(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl", message_bodies=True)
    write_a_conversation(log)
    records = list(AuditReader(log.path).records())
    assert records[0]["text"] == SECRET_TEXT
    assert records[1]["arguments"]["message"] == SECRET_TEXT
    assert records[3]["speech"] == f"Send '{SECRET_TEXT}'?"


def test_free_text_is_whatever_the_schema_does_not_constrain() -> None:
    assert redact("create_event", {"calendar_id": "calendar.family", "summary": "Dentist"}) == {
        "calendar_id": "calendar.family",
        "summary": "<7 chars>",
    }
    assert (
        redact("add_todo_item", {"list_id": "todo.x", "item": "milk", "due_date": "2026-12-01"})[
            "item"
        ]
        == "<4 chars>"
    )
    assert redact("set_light", {"area_id": ["kitchen"], "brightness_pct": 30}) == {
        "area_id": ["kitchen"],
        "brightness_pct": 30,
    }
    # A tool the model made up: everything is text to it.
    assert redact("open_sesame", {"door": "front", "n": 3}) == {"door": "<5 chars>", "n": 3}


def test_rotation_keeps_the_log_within_its_bound_and_every_line_whole(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl", max_bytes=2000, keep=2)
    minji = Principal.user("minji", "Min-ji")
    for number in range(200):
        log.accepted(request(minji, f"r{number}"), "botpsy/home/request")
    files = [p for p in rotated_paths(log.path, 2) if p.exists()]
    assert len(files) == 3
    assert all(p.stat().st_size <= 2000 for p in files)
    ids = [r["id"] for r in AuditReader(log.path, keep=2).records()]
    assert ids == [f"r{n}" for n in range(200 - len(ids), 200)]  # the newest, in order
    assert not (tmp_path / "audit.jsonl.3").exists()


def test_a_full_disk_drops_records_and_the_next_write_recovers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    health: list[tuple[bool, str]] = []
    path = tmp_path / "audit.jsonl"
    path.symlink_to("/dev/full")
    log = AuditLog(path, on_health=lambda ok, detail: health.append((ok, detail)))
    write_a_conversation(log)
    assert (log.written, log.dropped) == (0, 5)
    assert health == [(False, "audit log not writable: No space left on device")]
    assert caplog.text.count("cannot be written") == 1  # once, not once per record
    path.unlink()
    write_a_conversation(log)
    assert (log.written, log.dropped) == (5, 5)
    assert health[-1] == (True, "audit log writable")
    assert len(list(AuditReader(path).records())) == 5


def test_unreadable_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_text('{"kind": "request", "id": "a"}\nnot json\n[1, 2]\n{"kind": "request"\n')
    reader = AuditReader(path)
    assert [r["id"] for r in reader.records()] == ["a"]
    assert reader.skipped == 3


def test_filters_by_principal_decision_tool_kind_and_time(tmp_path: Path) -> None:
    clock = SteppingClock()
    log = AuditLog(tmp_path / "audit.jsonl", clock=clock)
    write_a_conversation(log)
    reader = AuditReader(log.path)

    def ids(where: AuditFilter) -> list[tuple[str, str]]:
        return [(r["kind"], r.get("tool") or r["id"]) for r in reader.records(where)]

    assert ids(AuditFilter(decision="deny")) == [("action", "control_lock")]
    assert ids(AuditFilter(tool="send_message")) == [("action", "send_message")]
    assert ids(AuditFilter(principal="daniel")) == [("refused", "r2")]  # the claimed user
    assert ids(AuditFilter(security_only=True)) == [("refused", "r2")]
    assert len(ids(AuditFilter(principal="user:minji"))) == 4
    assert ids(AuditFilter(kinds=frozenset({"response"}))) == [("response", "r1")]
    assert ids(AuditFilter(since=START + timedelta(seconds=3, milliseconds=500))) == [
        ("response", "r1"),
        ("refused", "r2"),
    ]
    assert len(ids(AuditFilter(until=START + timedelta(seconds=1)))) == 1


def test_times_are_relative_or_iso() -> None:
    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    assert parse_when("2h", now) == now - timedelta(hours=2)
    assert parse_when("30m", now) == now - timedelta(minutes=30)
    assert parse_when("2026-11-30T08:00") == datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
    with pytest.raises(ValueError, match="30m, 2h, 7d"):
        parse_when("yesterday")


def test_the_audit_command_prints_and_filters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = AuditLog(tmp_path / "audit.jsonl", clock=SteppingClock())
    write_a_conversation(log)
    assert main(["audit", "--file", str(log.path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 5
    assert "control_lock lock.back_door decision=deny rule=no-locks-for-users" in lines[2]
    assert "SECURITY bad_signature claimed user daniel" in lines[4]

    assert main(["audit", "--file", str(log.path), "--decision", "confirm", "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line)["tool"] == "send_message"

    assert main(["audit", "--file", str(log.path), "--security", "--principal", "daniel"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1
    assert main(["audit", "--file", str(log.path), "--since", "soon"]) == 1
    assert "not a time" in capsys.readouterr().err
    assert main(["audit", "--file", str(tmp_path / "none.jsonl")]) == 1
    assert "no audit log" in capsys.readouterr().err


def test_every_kind_reads_as_one_line() -> None:
    for record in (
        {"kind": "request", "id": "a", "topic": "t", "retry": True, "text": "hi"},
        {"kind": "response", "id": "a", "status": "done", "path": "fast_path", "total_ms": 3},
        {"kind": "something_new", "id": "a", "x": 1},
    ):
        assert "\n" not in format_record(record)
