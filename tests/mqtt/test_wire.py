"""Reading requests, answer addresses, signatures and the replay memory, without a broker."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from botpsy_agent.contract import canonical_bytes, sign, signature, signature_matches
from botpsy_agent.mqtt import ApiSettings, SecretFile, StaticSecrets, Topics
from botpsy_agent.mqtt.signing import ReplayGuard, ReplayKey, redact
from botpsy_agent.mqtt.wire import Rejection, RequestParser, WireRequest
from tests.mqtt.malformed import MALFORMED, Malformed

SECRET = "s3cret-shared-at-integration-setup"
PARSER = RequestParser(ApiSettings())


@pytest.mark.parametrize("case", MALFORMED, ids=lambda case: case.name)
def test_each_malformed_payload_gets_its_code(case: Malformed) -> None:
    result = PARSER.parse(case.payload, retained=case.retained)
    assert isinstance(result, Rejection)
    assert (result.code, result.request_id) == (case.code, case.request_id)
    assert result.message


def test_there_are_at_least_fifteen_kinds_with_distinct_codes() -> None:
    assert len(MALFORMED) >= 15
    assert len({case.code for case in MALFORMED}) >= 15


def test_a_full_request_is_read_field_by_field() -> None:
    document = {
        "id": "req-1",
        "text": "불 켜줘",
        "language": "ko-KR",
        "conversation_id": "c-9",
        "reply_to": "botpsy/home/response/panel/7",
        "user_id": "abc123",
        "ts": 1_800_000_000,
        "sig": "0" * 64,
        "device_id": "dev01",
        "area_id": "kitchen",
        "dry_run": True,
    }
    result = PARSER.parse(json.dumps(document, ensure_ascii=False).encode())
    assert isinstance(result, WireRequest)
    assert result.language == "ko"  # the primary language: what the agent answers in
    assert (result.text, result.user_id, result.ts, result.dry_run) == (
        "불 켜줘",
        "abc123",
        1_800_000_000,
        True,
    )
    assert result.document == document


def test_language_defaults_to_the_first_configured() -> None:
    result = RequestParser(ApiSettings(languages=("id", "en"))).parse(b'{"id": "a", "text": "hi"}')
    assert isinstance(result, WireRequest)
    assert result.language == "id"


def test_a_signature_value_is_never_quoted_in_an_error() -> None:
    secretish = "F" * 64
    result = PARSER.parse(
        json.dumps({"id": "a", "text": "t", "user_id": "u", "ts": 1, "sig": secretish}).encode()
    )
    assert isinstance(result, Rejection)
    assert "FFFFFF" not in result.message


@pytest.mark.parametrize(
    ("reply_to", "principal", "allowed"),
    [
        ("botpsy/home/response", None, True),
        ("botpsy/home/response/ha/entry-1", None, True),
        ("botpsy/home/response/kitchen-panel", "kitchen-panel", True),
        ("botpsy/home/response/kitchen-panel/req7", "kitchen-panel", True),
        ("botpsy/home/response/someone-else", "kitchen-panel", False),
        ("botpsy/home/response/kitchen-panelx", "kitchen-panel", False),
        ("botpsy/home/response", "kitchen-panel", False),
        ("botpsy/home/response/#", None, False),
        ("botpsy/home/response/+/x", None, False),
        ("botpsy/other/response/x", None, False),
        ("homeassistant/status", None, False),
        ("botpsy/home/responses", None, False),
        ("botpsy/home/response//x", None, False),
        ("botpsy/home/response/x/", None, False),
        ("botpsy/home/response/" + "x" * 300, None, False),
        ("botpsy/home/response/a\nb", None, False),
    ],
)
def test_answers_only_go_under_the_requesters_response_topic(
    reply_to: str, principal: str | None, allowed: bool
) -> None:
    topics = Topics.of(ApiSettings(instance="home"))
    assert (topics.reply_problem(reply_to, principal) is None) is allowed


def test_request_topics_name_their_principal() -> None:
    topics = Topics.of(ApiSettings(instance="home"))
    assert topics.principal_of("botpsy/home/request") is None
    assert topics.principal_of("botpsy/home/request/kitchen-panel") == "kitchen-panel"
    with pytest.raises(ValueError, match="not a request topic"):
        topics.principal_of("botpsy/home/request/a/b")


@pytest.mark.parametrize("instance", ["", "Home", "a/b", "x" * 40, "-x"])
def test_instance_names_are_checked(instance: str) -> None:
    with pytest.raises(ValueError, match="instance"):
        ApiSettings(instance=instance)


def test_canonical_form_is_sorted_compact_utf8_without_sig() -> None:
    document = {"text": "été", "id": "r1", "sig": "ignored", "ts": 7, "dry_run": False}
    assert canonical_bytes(document) == '{"dry_run":false,"id":"r1","text":"été","ts":7}'.encode()


def test_known_signature_vectors() -> None:
    # From openssl, over the canonical text written out by hand:
    #   printf '{"id":"r1","text":"été","ts":1,"user_id":"u"}' | openssl dgst -sha256 -hmac <SECRET>
    vectors = {
        "hi": "c9bedbc3b348bf10e2be04823949ea9d7bdd7351cf27ea141f47999597b89df9",
        "été": "a156b1edd6f564ebec7bb621d25cbfc4ebd296ee9924be03a13076a1fbace7c1",
    }
    for text, expected in vectors.items():
        assert signature({"user_id": "u", "ts": 1, "text": text, "id": "r1"}, SECRET) == expected


def test_signatures_verify_with_any_current_secret_and_break_on_any_change() -> None:
    signed = sign({"id": "r1", "text": "turn on the light", "user_id": "u1"}, SECRET, now=1000)
    assert signed["ts"] == 1000
    assert signature_matches(signed, signed["sig"], [SECRET])
    assert signature_matches(signed, signed["sig"], ["another-secret-of-enough-length", SECRET])
    assert not signature_matches(signed, signed["sig"], ["another-secret-of-enough-length"])
    assert not signature_matches({**signed, "text": "unlock the door"}, signed["sig"], [SECRET])
    assert not signature_matches({**signed, "ts": 1001}, signed["sig"], [SECRET])
    assert redact(signed["sig"]) == signed["sig"][:6] + "…"


def test_static_secrets_refuse_short_ones_and_hide_in_repr() -> None:
    with pytest.raises(ValueError, match="at least"):
        StaticSecrets("short")
    assert SECRET not in repr(StaticSecrets(SECRET))


def test_replay_guard_window_memory_and_bound() -> None:
    now = [1000.0]
    guard = ReplayGuard(60, capacity=2, clock=lambda: now[0])
    assert guard.is_fresh(1000) and guard.is_fresh(940) and guard.is_fresh(1060)
    assert not guard.is_fresh(939) and not guard.is_fresh(1061)
    first = ReplayKey("u1", "r1", 1000)
    assert not guard.seen(first)
    guard.remember(first)
    assert guard.seen(first)
    guard.remember(ReplayKey("u1", "r2", 1000))
    assert guard.full()
    now[0] = 1061  # both timestamps left the window: stale now, so forgotten
    assert not guard.full()
    assert not guard.seen(first)


def test_secret_file_reads_rotates_and_skips_weak_lines(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "mqtt_secrets"
    provider = SecretFile(path)
    assert provider.secrets() == ()
    path.write_text(f"# shared with the integration\n{SECRET}\nshort\n")
    assert provider.secrets() == (SECRET,)
    assert "line 3" in caplog.text
    rotated = "a-new-secret-after-rotation-0001"
    path.write_text(f"{SECRET}\n{rotated}  # added by the integration\n")
    assert provider.secrets() == (SECRET, rotated)
    with caplog.at_level(logging.DEBUG):
        path.unlink()
        assert provider.secrets() == ()
    assert SECRET not in caplog.text and rotated not in caplog.text
