"""Fuzzing the policy loader: any text, any YAML shape, a valid policy cut off anywhere or
with values swapped for others (huge numbers, look-alike names). Each file loads as a policy
or is refused with problems that say where and what; nothing else escapes."""

from __future__ import annotations

from pathlib import Path
import tempfile
from typing import Any

from hypothesis import given, strategies as st
import yaml

from botpsy_agent.policy import Policy, Principal
from botpsy_agent.policy.loader import PolicyError, load_policy, parse_policy
from tests.fuzz.strategies import BOUNDED, HUGE_NUMBERS, confusable, json_values, truncations

VALID = """\
version: 1
confirm: [locks, entrance_covers]
household: ["notify.mobile_app_*"]
groups:
  admin:
    ignore_exposure: true
    rules:
      - allow: [read, control]
  users:
    rules:
      - allow: [read, control]
        areas: [kitchen, living_room]
      - id: no-locks
        deny: control
        domains: [lock]
      - limit: {temperature: {min: 18, max: 24}}
        domains: [climate]
      - allow: control
        entities: ["light.*"]
        when: {after: "07:00", before: "22:00"}
mqtt:
  panel:
    rules:
      - allow: [read]
anonymous:
  rules: []
"""
TOP_KEYS = ["version", "confirm", "household", "groups", "users", "mqtt", "anonymous", "extra"]


def load(text: str) -> Policy | None:
    try:
        policy = parse_policy(text, "fuzz.yaml")
    except PolicyError as err:
        assert err.problems
        for problem in err.problems:
            assert problem.message.strip()
            assert problem.render("fuzz.yaml").startswith("fuzz.yaml")
        return None
    policy.rules_for(Principal.mqtt("panel"))  # a loaded policy answers
    return policy


def test_the_valid_policy_loads() -> None:
    assert load(VALID) is not None


@BOUNDED
@given(st.text(max_size=300))
def test_any_text(text: str) -> None:
    load(text)


@BOUNDED
@given(truncations(VALID))
def test_a_policy_cut_off_anywhere(text: str) -> None:
    load(text)


@BOUNDED
@given(st.dictionaries(st.sampled_from(TOP_KEYS), json_values(8), max_size=6))
def test_any_yaml_shape(document: dict[str, Any]) -> None:
    load(yaml.safe_dump(document, allow_unicode=True))


@BOUNDED
@given(
    st.sampled_from(["18", "24", "kitchen", '"light.*"', '"07:00"', "lock", "1"]),
    st.one_of(HUGE_NUMBERS.map(repr), json_values(4).map(lambda v: yaml.safe_dump(v).strip())),
)
def test_any_value_swapped_for_another(old: str, new: str) -> None:
    load(VALID.replace(old, new, 1))


@BOUNDED
@given(confusable("kitchen"), confusable("light.*"), confusable("notify.mobile_app_*"))
def test_look_alike_names(area: str, lights: str, household: str) -> None:
    text = VALID.replace("kitchen", area).replace("light.*", lights)
    policy = load(text.replace("notify.mobile_app_*", household))
    if policy is not None and household != "notify.mobile_app_*":
        assert not policy.in_household("notify.mobile_app_anna")


@BOUNDED
@given(st.binary(max_size=200))
def test_any_bytes_in_the_file(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "policy.yaml")
        path.write_bytes(data)
        try:
            load_policy(path)
        except PolicyError as err:
            assert err.problems


def test_tags_and_aliases_that_loop_or_explode_are_problems_not_crashes() -> None:
    for text in (
        "=",
        "version: !!python/object:os.system 1",
        "groups: &loop\n  admin: *loop\n",
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
            for p, c in zip("abcdefgh", "bcdefghi", strict=True)
        ),
    ):
        assert load(text) is None
