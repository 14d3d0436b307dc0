"""Policy files: every invalid kind gets a precise error (file, line, field); bad reloads
keep the previous policy; the default policy is valid and safe."""

from __future__ import annotations

from pathlib import Path
import textwrap

import pytest

from botpsy_agent.policy import PolicyError, parse_policy
from botpsy_agent.policy.default import DefaultPolicyUser, default_policy_yaml
from botpsy_agent.policy.model import Principal
from botpsy_agent.policy.store import PolicyStore
from tests.policy.policies import CHILD, FAMILY_POLICY

BASE = """\
version: 1
groups:
  users:
    rules:
      - allow: [read, control]
"""

# (what is wrong, file text, expected "line: field: message" fragment)
INVALID = [
    (
        "unknown top-level key",
        BASE + "colour: blue\n",
        "bad.yaml:6: unknown key 'colour'",
    ),
    (
        "unknown key in a rule",
        BASE + "        areaz: [kitchen]\n",
        "bad.yaml:6: groups.users.rules[0]: unknown key 'areaz'",
    ),
    (
        "bad glob",
        BASE + "      - deny: control\n        entities: ['Light.*']\n",
        "bad.yaml:7: groups.users.rules[1].entities: 'Light.*' is not an entity glob",
    ),
    (
        "unknown group principal",
        "version: 1\ngroups:\n  grownups:\n    rules: []\n",
        "bad.yaml:3: groups.grownups",
    ),
    (
        "user id that is not an HA user id",
        "version: 1\nusers:\n  - id: sam\n    rules: []\n",
        "bad.yaml:3: users[0].id: String should match pattern",
    ),
    (
        "bound with min greater than max",
        BASE + "      - limit:\n          temperature: {min: 30, max: 18}\n",
        "bad.yaml:7: groups.users.rules[1].limit.temperature: min 30 is greater than max 18",
    ),
    (
        "YAML syntax error",
        BASE + "      - allow: [read\n",
        "bad.yaml:7: YAML syntax error",
    ),
    (
        "unknown access",
        BASE + "      - allow: write\n",
        "bad.yaml:6: groups.users.rules[1].allow[0]: Input should be 'read' or 'control'",
    ),
    (
        "two effects in one rule",
        BASE + "      - allow: read\n        deny: control\n",
        "bad.yaml:6: groups.users.rules[1]: a rule has exactly one of allow, deny, confirm, "
        "limit (found allow, deny)",
    ),
    (
        "unknown bound",
        BASE + "      - limit: {loudness: {max: 3}}\n",
        "bad.yaml:6: groups.users.rules[1].limit.loudness",
    ),
    (
        "bad time window",
        BASE + "      - deny: control\n        when: {after: '9pm'}\n",
        "bad.yaml:7: groups.users.rules[1].when.after: '9pm' is not a time like 21:00",
    ),
    (
        "unknown tool",
        BASE + "      - deny: control\n        tools: [launch_rocket]\n",
        "bad.yaml:7: groups.users.rules[1].tools: unknown tool launch_rocket",
    ),
    (
        "unsupported version",
        "version: 2\n",
        "bad.yaml:1: version: Input should be 1",
    ),
    (
        "missing version",
        "groups: {}\n",
        "bad.yaml:1: version: Field required",
    ),
    (
        "non-admins ignoring exposure",
        "version: 1\ngroups:\n  users:\n    ignore_exposure: true\n",
        "bad.yaml:2: groups: only the admin group may set ignore_exposure",
    ),
    (
        "user listed twice",
        f"version: 1\nusers:\n  - id: {CHILD}\n  - id: {CHILD}\n",
        f"bad.yaml:2: users: user {CHILD} is listed twice",
    ),
    (
        "bad MQTT principal name",
        "version: 1\nmqtt:\n  'kitchen panel': {}\n",
        "bad.yaml:2: mqtt: 'kitchen panel' is not an MQTT principal name",
    ),
    (
        "household that is not a notify target",
        "version: 1\nhousehold: ['light.*']\n",
        "bad.yaml:2: household: 'light.*' is not a notify target glob",
    ),
    (
        "empty file",
        "",
        "bad.yaml: the file is empty",
    ),
]


@pytest.mark.parametrize(("kind", "text", "expected"), INVALID, ids=[k for k, _, _ in INVALID])
def test_invalid_policy_gives_a_precise_error(kind: str, text: str, expected: str) -> None:
    with pytest.raises(PolicyError) as err:
        parse_policy(text, "bad.yaml")
    assert expected in str(err.value), f"{kind}: {err.value}"


@pytest.mark.parametrize("selector", ["entities", "tools", "areas"])
def test_a_selector_with_no_value_is_refused_not_read_as_everything(selector: str) -> None:
    # `areas:` with nothing after it would otherwise be no selector: the rule would cover all.
    with pytest.raises(PolicyError) as err:
        parse_policy(BASE + f"      - allow: control\n        {selector}:\n", "p.yaml")
    assert f"p.yaml:7: groups.users.rules[1].{selector}: has no value" in str(err.value)


def test_unknown_ha_user_is_an_unknown_principal() -> None:
    with pytest.raises(PolicyError) as err:
        parse_policy(FAMILY_POLICY, "family.yaml", known_user_ids=["f" * 32])
    assert f"users[0].id: no HA user has id {CHILD}" in str(err.value)
    assert str(err.value).startswith("family.yaml:")


def test_every_problem_is_reported_at_once() -> None:
    text = BASE + "      - allow: write\n        areaz: [x]\n"
    with pytest.raises(PolicyError) as err:
        parse_policy(text, "bad.yaml")
    assert len(err.value.problems) == 2


def test_bad_reload_keeps_the_previous_policy(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(FAMILY_POLICY)
    store = PolicyStore(path)
    first = store.load()
    path.write_text(FAMILY_POLICY.replace("version: 1", "version: 1\nsurprise: true"))
    assert store.changed_on_disk()
    error = store.reload()
    assert error is not None
    assert "unknown key 'surprise'" in str(error)
    assert store.policy is first
    assert "previous policy stays in force" in caplog.text
    assert not store.changed_on_disk()  # the broken file is not re-reported every poll

    path.write_text(FAMILY_POLICY.replace("min: 18", "min: 16"))
    assert store.reload() is None
    assert store.policy is not first
    assert store.last_error is None


def test_first_load_of_an_invalid_file_raises(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("version: 1\nusers: 3\n")
    with pytest.raises(PolicyError) as err:
        PolicyStore(path).load()
    assert f"{path}:2: users" in str(err.value)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="cannot read"):
        PolicyStore(tmp_path / "absent.yaml").load()


def test_default_policy_is_valid_and_denies_mqtt_and_anonymous() -> None:
    users = [DefaultPolicyUser("a" * 32, "Ann", True), DefaultPolicyUser("b" * 32, "Bo", False)]
    text = default_policy_yaml(users)
    policy = parse_policy(text, "default.yaml", known_user_ids=[u.id for u in users])
    assert policy.rules_for(Principal.anonymous()).rules == ()
    assert policy.rules_for(Principal.mqtt("anything")).rules == ()
    assert policy.rules_for(Principal.user("a" * 32, is_admin=True)).ignore_exposure
    assert not policy.rules_for(Principal.user("b" * 32)).ignore_exposure
    assert len(policy.confirm) == 5
    assert textwrap.dedent(text).startswith("# BotPsy permissions")
