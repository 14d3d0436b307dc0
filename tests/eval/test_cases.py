"""The evaluation cases are well formed (running them is `make eval`)."""

from __future__ import annotations

from tests.eval.cases import load_cases

REQUIRED = {
    "device_single",
    "device_area",
    "device_relative",
    "state_question",
    "calendar",
    "messaging_todo",
    "multi_turn",
    "multi_step",
    "confirmation",
    "no_tool_fits",
    "permission",
}


def test_at_least_150_cases_in_every_required_category() -> None:
    cases = load_cases()
    assert len(cases) >= 150
    assert {c.category for c in cases} >= REQUIRED
    assert sum(c.deterministic for c in cases) >= 80
    for case in cases:
        assert case.turns, case.id
        assert all(t.say.strip() for t in case.turns), case.id


def test_permission_probes_expect_refusal_and_no_change() -> None:
    probes = [c for c in load_cases() if c.category == "permission"]
    assert len(probes) >= 20
    assert all(c.user == "child" and c.expects_refusal and not c.changes for c in probes)
