"""Permission updates from the HA integration: merged into the policy file's text, validated
whole, written only when valid, applied once per revision, refused with reasons."""

from __future__ import annotations

import json
import os
from pathlib import Path
import time
from typing import Any

import pytest

from botpsy_agent.contract import sign
from botpsy_agent.link.policy_sync import PolicyUpdates, merge_update, replace_top_level
from botpsy_agent.mqtt.signing import StaticSecrets
from botpsy_agent.policy.store import PolicyStore

SECRET = "policy-sync-test-secret-0123456789"
MINJI = "0d4c5e6f7a8b9c0d1e2f3a4b5c6d7e8f"
DANIEL = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d"
POLICY = f"""\
# Our rules. Comments stay.
version: 1
confirm: [locks]   # the house's choice
users:
  - id: {MINJI}
    name: Min-ji
    rules:
      - id: kids
        allow: [read]
        areas: [kids_room]
      - id: ui-old
        deny: [control]
# The panel in the kitchen.
mqtt:
  kitchen-panel: {{rules: []}}
"""


@pytest.fixture
def updates(tmp_path: Path) -> PolicyUpdates:
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY)
    store = PolicyStore(path, lambda: [MINJI, DANIEL])
    store.load()
    return PolicyUpdates(
        "home", store, StaticSecrets(SECRET), tmp_path / "revisions.json", lambda: [MINJI, DANIEL]
    )


def update(
    key: str, revision: int, secret: str = SECRET, now: float | None = None, **body: Any
) -> bytes:
    document = {"key": key, "instance": "home", "revision": revision, **body}
    return json.dumps(sign(document, secret, now=now)).encode()


def user(*rules: dict[str, Any], inherit: bool = True, name: str = "Min-ji") -> dict[str, Any]:
    return {"name": name, "inherit": inherit, "rules": list(rules)}


def test_an_update_replaces_only_the_ui_rules_and_keeps_the_rest_of_the_file(
    updates: PolicyUpdates,
) -> None:
    rule = {"id": "ui-deny-areas", "deny": ["control"], "areas": ["kitchen"]}
    result = updates.apply(MINJI, update(MINJI, 10, user=user(rule, inherit=False)))
    assert result is not None and (result.status, result.problems) == ("applied", ())
    text = updates.store.path.read_text()
    assert text.startswith("# Our rules. Comments stay.\nversion: 1\nconfirm: [locks]   # the")
    assert "# The panel in the kitchen.\nmqtt:\n  kitchen-panel: {rules: []}\n" in text
    (entry,) = updates.state()["users"]
    assert entry == {
        "id": MINJI,
        "name": "Min-ji",
        "inherit": False,
        "rules": [{"id": "kids", "allow": ["read"], "areas": ["kids_room"]}, rule],
    }
    # The policy in force changed with the file.
    assert updates.store.policy.users[MINJI].inherit is False
    assert updates.state()["last_update"] == {
        "key": MINJI,
        "revision": 10,
        "status": "applied",
        "problems": [],
    }
    # Applied once: the same revision again (a retained message after a restart) does nothing.
    again = PolicyUpdates(
        "home",
        updates.store,
        StaticSecrets(SECRET),
        updates._revisions_file,  # the same data folder
    )
    assert again.apply(MINJI, update(MINJI, 10, user=user(rule))) is None
    assert again.apply(MINJI, b"") is None


def test_a_new_person_and_the_confirmation_classes(updates: PolicyUpdates) -> None:
    allow = {"id": "ui-allow", "allow": ["read", "control"]}
    assert updates.apply(DANIEL, update(DANIEL, 1, user=user(allow, name="Daniel"))) is not None
    assert updates.apply("confirm", update("confirm", 2, confirm=["locks", "alarm_panels"]))
    state = updates.state()
    assert [u["id"] for u in state["users"]] == [MINJI, DANIEL]
    assert state["users"][1] == {"id": DANIEL, "name": "Daniel", "inherit": True, "rules": [allow]}
    assert state["confirm"] == ["locks", "alarm_panels"]


def test_home_assistants_own_rules_go_under_mqtt_and_keep_the_hand_written_ones(
    updates: PolicyUpdates,
) -> None:
    path = updates.store.path
    path.write_text(
        path.read_text() + "  homeassistant:\n    rules:\n      - {allow: [read], areas: [hall]}\n"
    )
    rule = {"id": "ui-allow", "allow": ["read"]}
    result = updates.apply("homeassistant", update("homeassistant", 5, principal={"rules": [rule]}))
    assert result is not None and (result.status, result.problems) == ("applied", ())
    assert "# The panel in the kitchen.\n" in path.read_text()
    kept = {"allow": ["read"], "areas": ["hall"]}
    assert updates.state()["homeassistant"] == {"rules": [kept, rule]}
    assert "kitchen-panel" in updates.store.policy.mqtt
    # Saved again: the form's rules are replaced, the hand-written one stays.
    result = updates.apply("homeassistant", update("homeassistant", 6, principal={"rules": []}))
    assert result is not None and result.status == "applied"
    assert updates.state()["homeassistant"] == {"rules": [kept]}
    # Only rules of the form, and only the principal's rules.
    for body in ({"rules": [{"allow": ["read"]}]}, {"rules": [], "name": "x"}, []):
        result = updates.apply("homeassistant", update("homeassistant", 7, principal=body))
        assert result is not None and result.status == "refused", body
    result = updates.apply("kitchen-panel", update("kitchen-panel", 8, principal={"rules": []}))
    assert result is not None and result.status == "refused"


def test_an_invalid_update_is_refused_and_the_file_stays(updates: PolicyUpdates) -> None:
    before = updates.store.path.read_text()
    bad = {"id": "ui-limit", "limit": {"temperature": {"min": 30, "max": 18}}}
    result = updates.apply(MINJI, update(MINJI, 5, user=user(bad)))
    assert result is not None and result.status == "refused"
    assert "min 30 is greater than max 18" in result.problems[0]
    assert "policy.yaml:" in result.problems[0]
    assert updates.store.path.read_text() == before
    unknown_person = "f" * 32
    result = updates.apply(unknown_person, update(unknown_person, 6, user=user()))
    assert result is not None and "no HA user has id" in result.problems[0]


MALFORMED = [
    (MINJI, b"{not json", "not JSON"),
    (MINJI, b"[]", "not a JSON object"),
    (MINJI, update(MINJI, 1, user=user(), extra=1), "unknown ['extra']"),
    ("confirm", update(MINJI, 1, user=user()), "missing ['confirm']"),
    (DANIEL, update(MINJI, 1, user=user()), "another key or instance"),
    ("someone", update("someone", 1, user=user()), "an HA user id, 'confirm' or 'homeassistant'"),
    (MINJI, update(MINJI, 0, user=user()), "sig and revision"),
    ("confirm", update("confirm", 1, confirm="locks"), "list of classes"),
    (MINJI, update(MINJI, 1, user={"rules": [], "color": 1}), "object with name"),
    (MINJI, update(MINJI, 1, user={"rules": [], "inherit": "yes"}), "inherit"),
    (MINJI, update(MINJI, 1, user={"rules": [], "name": 7}), "name must be text"),
    (MINJI, update(MINJI, 1, user={"rules": "all"}), "list of at most"),
    (MINJI, update(MINJI, 1, user=user({"id": "mine", "allow": ["read"]})), "'ui-'"),
    (MINJI, update(MINJI, 1, secret="x" * 40, user=user()), "signature does not match"),
]


@pytest.mark.parametrize(
    ("key", "payload", "problem"), MALFORMED, ids=[problem for _, _, problem in MALFORMED]
)
def test_malformed_or_forged_updates_are_refused(
    updates: PolicyUpdates, key: str, payload: bytes, problem: str
) -> None:
    before = updates.store.path.read_text()
    result = updates.apply(key, payload)
    assert result is not None and result.status == "refused"
    assert problem in result.problems[0]
    assert updates.store.path.read_text() == before


def test_a_broken_file_refuses_updates_and_the_state_says_what_is_known(
    updates: PolicyUpdates,
) -> None:
    updates.store.path.write_text("version: 1\nusers: {a: 1}\n")
    result = updates.apply(MINJI, update(MINJI, 3, user=user()))
    assert result is not None and "users is not a list" in result.problems[0]
    updates.store.path.write_text("- just a list\n")
    assert updates.apply(MINJI, update(MINJI, 4, user=user())) is not None
    assert updates.state()["users"] == []
    updates.store.path.unlink()
    result = updates.apply(MINJI, update(MINJI, 5, user=user()))
    assert result is not None and result.status == "refused"
    assert updates.state()["confirm"] == [
        "locks",
        "alarm_panels",
        "entrance_covers",
        "messages_outside_household",
        "calendar_deletes",
    ]


def test_the_revisions_file_may_be_missing_or_damaged(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY)
    store = PolicyStore(path)
    for content in ("{broken", '["a list"]', '{"x": 5, "y": "no"}'):
        (tmp_path / "revisions.json").write_text(content)
        updates = PolicyUpdates("home", store, StaticSecrets(SECRET), tmp_path / "revisions.json")
        assert updates._revisions in ({}, {"x": 5})


def test_splicing_keeps_the_text_around_the_section() -> None:
    text = "version: 1\nusers:\n- id: a\n  note: |\n    two\n    lines\n# after\nmqtt: {}\n"
    spliced = replace_top_level(text, "users", [])
    assert spliced == "version: 1\nusers: []\n# after\nmqtt: {}\n"
    assert replace_top_level("version: 1", "confirm", ["locks"]) == (
        "version: 1\nconfirm:\n- locks\n"
    )
    assert replace_top_level("{version: 1}", "confirm", []) == "version: 1\nconfirm: []\n"
    merged = merge_update("version: 1\n", {"key": MINJI, "user": user(inherit=True)})
    assert merged == f"version: 1\nusers:\n- id: {MINJI}\n  name: Min-ji\n  rules: []\n"


def test_a_file_that_cannot_be_written_is_a_refusal_not_a_crash(
    updates: PolicyUpdates, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Where the new file would be written first, something else is in the way.
    (tmp_path / "policy.yaml.part").mkdir()
    before = updates.store.path.read_text()
    result = updates.apply(MINJI, update(MINJI, 7, user=user()))
    assert result is not None and result.status == "refused"
    assert updates.store.path.read_text() == before
    # Revisions that cannot be recorded: the update still applies.
    (tmp_path / "policy.yaml.part").rmdir()
    blocked = PolicyUpdates(
        "home", updates.store, StaticSecrets(SECRET), tmp_path / "policy.yaml" / "revisions.json"
    )
    result = blocked.apply(MINJI, update(MINJI, 8, user=user()))
    # Issue 18, finding 12: an update whose revision cannot be recorded could be applied
    # again after a restart (a replay): it is refused, and the file stays.
    assert result is not None and result.status == "refused"
    assert "cannot record" in result.problems[0]
    assert updates.store.path.read_text() == before


DENY_KITCHEN = {"id": "ui-no-kitchen", "deny": ["control"], "areas": ["kitchen"]}


def test_an_old_update_replayed_after_the_revisions_are_lost_is_refused(
    updates: PolicyUpdates, tmp_path: Path
) -> None:
    """Issue 18, finding 12. Reproduced on the old code: with the revisions file gone (a
    failed write, a restored backup), a captured older update applied again and undid the
    newer one; `ts` was never looked at."""
    path = updates.store.path
    two_hours_ago = time.time() - 7200
    os.utime(path, (two_hours_ago, two_hours_ago))
    captured = update(MINJI, 10, now=time.time() - 3600, user=user(DENY_KITCHEN))
    assert updates.apply(MINJI, captured).status == "applied"  # type: ignore[union-attr]
    assert updates.apply(MINJI, update(MINJI, 11, user=user())).status == "applied"  # type: ignore[union-attr]
    newer = path.read_text()

    (tmp_path / "revisions.json").unlink()  # lost
    restarted = PolicyUpdates(
        "home", updates.store, StaticSecrets(SECRET), tmp_path / "revisions.json"
    )
    result = restarted.apply(MINJI, captured)
    assert result is not None and result.status == "refused"
    assert "older than the policy file" in result.problems[0]
    assert path.read_text() == newer


def test_an_update_from_the_future_is_refused(updates: PolicyUpdates) -> None:
    before = updates.store.path.read_text()
    result = updates.apply(MINJI, update(MINJI, 12, now=time.time() + 3600, user=user()))
    assert result is not None and result.status == "refused"
    assert "in the future" in result.problems[0]
    assert updates.store.path.read_text() == before


def test_updates_signed_while_the_app_was_away_still_apply_in_any_order(
    updates: PolicyUpdates,
) -> None:
    """Retained updates of several keys, signed before the app came back, arrive together:
    the app's own write of the first must not make the second look stale."""
    path = updates.store.path
    an_hour_ago = time.time() - 3600
    os.utime(path, (an_hour_ago - 60, an_hour_ago - 60))
    first = update(MINJI, 20, now=an_hour_ago, user=user(DENY_KITCHEN))
    second = update("confirm", 21, now=an_hour_ago, confirm=["locks", "alarm_panels"])
    assert updates.apply(MINJI, first).status == "applied"  # type: ignore[union-attr]
    assert updates.apply("confirm", second).status == "applied"  # type: ignore[union-attr]
