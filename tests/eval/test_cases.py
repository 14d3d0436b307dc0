"""The evaluation cases are well formed and cannot pass by doing nothing (running them is
`make eval`); the scoring rules judge what they claim to judge."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from botpsy_agent.home.model import Area, Entity, Floor, Home
from botpsy_agent.words.recognizer import FastPath
from demo.paths import load_devices
from devkit import real_models
from tests.eval.cases import CaseError, load_cases, parse_case
from tests.eval.report import model_note
from tests.eval.run import resolve_model
from tests.eval.when import WhenError, resolve

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
    "injection",
}
BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 12, 1, 10, 0, tzinfo=BERLIN)  # a Tuesday


def case(**fields: Any) -> dict[str, Any]:
    return {"id": "c", "category": "calendar", "user": "admin", **fields}


def ask(text: str, **expect: Any) -> list[dict[str, Any]]:
    return [{"say": text, "expect": expect}]


def test_at_least_150_cases_in_every_required_category() -> None:
    cases = load_cases()
    assert len(cases) >= 150
    assert {c.category for c in cases} >= REQUIRED
    assert sum(c.deterministic for c in cases) >= 80
    assert sum(not c.deterministic for c in cases) >= 100


def test_permission_probes_expect_refusal_and_no_change() -> None:
    probes = [c for c in load_cases() if c.category == "permission"]
    assert len(probes) >= 20
    assert all(c.user == "child" and c.expects_refusal and not c.changes for c in probes)


def test_a_model_path_case_expecting_nothing_without_a_reason_does_not_load() -> None:
    with pytest.raises(CaseError) as raised:
        parse_case(case(turns=ask("what's on tomorrow", status="done"), changes={}))
    assert raised.value.code == "nothing_expected"


def test_a_change_that_is_only_allowed_is_not_an_expectation() -> None:
    with pytest.raises(CaseError) as raised:
        parse_case(case(turns=ask("move the dentist"), changes={"calendar.family": {}}))
    assert raised.value.code == "nothing_expected"


def test_a_reason_for_no_change_needs_an_answer_that_is_not_plain_done() -> None:
    with pytest.raises(CaseError) as raised:
        parse_case(
            case(turns=ask("book a flight", status="done"), no_change_because="not a home thing")
        )
    assert raised.value.code == "passes_by_doing_nothing"
    refused = parse_case(
        case(
            turns=ask("book a flight", status=["refused", "needs_clarification"]),
            no_change_because="not a home thing",
        )
    )
    assert refused.no_change_because == "not a home thing"
    assert refused.turns[0].statuses == {"refused", "needs_clarification"}


def test_a_reason_for_no_change_contradicts_expected_changes() -> None:
    with pytest.raises(CaseError) as raised:
        parse_case(
            case(
                turns=ask("turn it on", status="refused"),
                changes={"light.hall": {"state": "on"}},
                no_change_because="refused",
            )
        )
    assert raised.value.code == "reason_with_changes"


def test_deterministic_cases_need_no_reason() -> None:
    loaded = parse_case(
        case(turns=ask("unlock the front door", path="fast_path", status="refused"))
    )
    assert loaded.deterministic


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"turns": ask("x"), "answer_contains": "y", "chnages": {}}, "unknown_field"),
        ({"turns": ask("x", staus="done"), "answer_contains": "y"}, "unknown_expectation"),
        ({"turns": ask("x", status="finished"), "answer_contains": "y"}, "bad_status"),
        ({"turns": ask("x"), "events": [{"summary_contains": "a", "start": "soon"}]}, "bad_time"),
        ({"turns": ask("x"), "events": [{"summary_contains": "a", "at": "today"}]}, "bad_event"),
        ({"turns": ask("x"), "items": [{"summary": "a", "status": "gone"}]}, "bad_item"),
        ({"turns": ask("x"), "messages": [{"to": "light.hall", "contains": "a"}]}, "bad_message"),
        ({"turns": ask("x"), "setup": [{"plant": "x"}], "answer_contains": "y"}, "bad_setup"),
        (
            {"turns": ask("x"), "changes": {"light.hall": {"brightness_pct": {"lt": 3}}}},
            "bad_changes",
        ),
        ({"turns": []}, "no_turns"),
    ],
)
def test_malformed_cases_fail_to_load_with_a_code(fields: dict[str, Any], code: str) -> None:
    with pytest.raises(CaseError) as raised:
        parse_case(case(**fields), "calendar.yaml")
    assert raised.value.code == code
    assert "calendar.yaml: c:" in str(raised.value)


def _demo_home() -> Home:
    """The demo home's names, areas and floors, as the app's index would build them."""
    devices = load_devices()
    entities = [
        Entity(
            entity_id,
            spec[0],
            spec[1],
            devices.AREAS[spec[1]][1],
            aliases=tuple(devices.ALIASES.get(entity_id, ())),
            device_class=spec[2] if table is devices.COVERS else None,
        )
        for table in devices.DEVICE_TABLES
        for entity_id, spec in table.items()
    ]
    entities += [
        Entity("calendar.family", "Family"),
        Entity("todo.shopping_list", "Shopping list"),
        Entity("scene.movie_night", "Movie night"),
        Entity("script.good_night", "Good night"),
        Entity("notify.mobile_app_anna_phone", "Anna phone", is_service=True),
        Entity("notify.mobile_app_sam_phone", "Sam phone", is_service=True),
    ]
    areas = [
        Area(area_id, name, floor, tuple(aliases))
        for area_id, (name, floor, aliases) in devices.AREAS.items()
    ]
    floors = [
        Floor(floor_id, name, level, tuple(aliases))
        for floor_id, (name, level, aliases) in devices.FLOORS.items()
    ]
    return Home.of(entities, areas, floors)


def test_model_path_turns_are_not_answered_by_the_fast_path() -> None:
    home, fast = _demo_home(), FastPath()
    assert fast.recognize("turn on the kitchen light", "en", home) is not None  # the home works
    answered = [
        (c.id, t.say)
        for c in load_cases()
        for t in c.turns
        if t.path is None and fast.recognize(t.say, "en", home) is not None
    ]
    assert not answered, answered


def test_time_phrases_resolve_in_the_home_time_zone() -> None:
    assert resolve("tomorrow 15:00", NOW) == datetime(2026, 12, 2, 15, 0, tzinfo=BERLIN)
    assert resolve("saturday 10:00", NOW) == datetime(2026, 12, 5, 10, 0, tzinfo=BERLIN)
    assert resolve("tuesday", NOW) == date(2026, 12, 8)  # the next one, never today
    assert resolve("in 3 days 09:30", NOW) == datetime(2026, 12, 4, 9, 30, tzinfo=BERLIN)
    with pytest.raises(WhenError):
        resolve("tomorrow 25:00", NOW)


async def test_a_real_model_name_resolves_through_the_test_bed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cached = tmp_path / "qwen2.5-coder-0.5b.gguf"
    cached.write_bytes(b"GGUF")

    def fetch_without_the_registry(name: str) -> Path:  # the download needs the internet
        assert name == "qwen2.5-coder-0.5b"
        return cached

    monkeypatch.setattr(real_models, "fetch", fetch_without_the_registry)
    model, label = await resolve_model("qwen2.5-coder-0.5b", stand_in=False)
    assert model.path == cached and not model.stand_in
    assert label == "qwen2.5-coder-0.5b (Qwen2.5-Coder-0.5B-Instruct Q4_K_M)"
    assert "not BotPsy" in model_note(label, stand_in=False)
    by_path, path_label = await resolve_model(str(cached), stand_in=False)  # a path, as before
    assert by_path.path == cached and path_label == "qwen2.5-coder-0.5b"
    with pytest.raises(SystemExit):
        await resolve_model(str(tmp_path / "missing.gguf"), stand_in=False)
