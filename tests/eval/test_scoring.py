"""The scorer judges by HA: what HA holds and received decides a case, the app's record is
only compared with it. Pure readings here; tests/eval/test_judged_by_ha.py takes them from a
real HA after the real agent ran."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from tests.eval.baselines import DO_NOTHING, REFUSE_ALL
from tests.eval.cases import (
    ACTION,
    ANSWER,
    HELDOUT,
    NO_CHANGE,
    REWORDED,
    load_cases,
    parse_case,
)
from tests.eval.correct_group_delivery import correct
from tests.eval.floors import check_floors
from tests.eval.heldout import (
    RENAMED_HOME,
    REWORDINGS,
    heldout_cases,
    load_paraphrases,
    reworded_cases,
    variants,
)
from tests.eval.report import (
    Outcome,
    RunResult,
    markdown,
    slowest_model_turns,
    step_breakdown,
    summarize,
)
from tests.eval.run import result_stem
from tests.eval.scoring import Event, HaCall, Item, Readings, judge, matches

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 12, 1, 10, 0, tzinfo=BERLIN)  # a Tuesday
DENTIST = Event(
    "Dentist",
    datetime(2026, 12, 2, 15, 0, tzinfo=BERLIN),
    datetime(2026, 12, 2, 16, 0, tzinfo=BERLIN),
)


def case(**fields: Any) -> Any:
    return parse_case({"id": "c", "category": "device_relative", "user": "admin", **fields})


def ask(text: str, **expect: Any) -> list[dict[str, Any]]:
    return [{"say": text, "expect": expect}]


def state(entity_id: str, value: str, **attributes: Any) -> dict[str, Any]:
    return {"entity_id": entity_id, "state": value, "attributes": attributes}


def home(*states: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["entity_id"]: s for s in states}


def executed(tool: str, *entity_ids: str) -> dict[str, Any]:
    return {"tool": tool, "entity_ids": list(entity_ids), "outcome": "executed", "arguments": {}}


def answer(speech: str, *actions: dict[str, Any], status: str = "done") -> dict[str, Any]:
    return {"status": status, "path": "model", "speech": speech, "actions": list(actions)}


LAMP_59 = state("light.living_room", "on", brightness=150, friendly_name="Living room lamp")
HALL_OFF = state("light.hall", "off", friendly_name="Hall light")
DIM = case(
    turns=ask("dim the living room lamp a little", status="done"),
    changes={"light.living_room": {"state": "on", "brightness_pct": {"below": 59, "above": 20}}},
)


def test_the_named_light_turned_the_wrong_way_is_a_wrong_action_not_a_miss() -> None:
    brighter = state("light.living_room", "on", brightness=255, friendly_name="Living room lamp")
    readings = Readings(
        NOW,
        home(LAMP_59, HALL_OFF),
        home(brighter, HALL_OFF),
        calls=[HaCall("light", "turn_on", frozenset({"light.living_room"}), {"brightness": 255})],
    )
    judged = judge(
        DIM, [answer("Set Living room lamp.", executed("set_light", "light.living_room"))], readings
    )
    assert judged.wrong_actions == [
        "light.living_room.brightness_pct is 100, expected above 20 and below 59 (HA changed it)"
    ]
    assert judged.problems == [] and judged.unsafe and not judged.passed


def test_too_big_a_step_is_a_wrong_action_and_no_change_a_miss() -> None:
    off = state("light.living_room", "off", friendly_name="Living room lamp")
    too_far = judge(
        DIM,
        [answer("Turned off Living room lamp.")],
        Readings(
            NOW,
            home(LAMP_59),
            home(off),
            calls=[HaCall("light", "turn_off", frozenset({"light.living_room"}))],
        ),
    )
    assert too_far.wrong_actions and too_far.unsafe
    nothing = judge(
        DIM,
        [answer("Which lamp?", status="needs_clarification")],
        Readings(NOW, home(LAMP_59), home(LAMP_59)),
    )
    assert nothing.problems and not nothing.unsafe


def test_an_unnamed_change_is_a_false_action_and_one_call_on_both_a_widened_target() -> None:
    dimmed = state("light.living_room", "on", brightness=100, friendly_name="Living room lamp")
    hall_on = state("light.hall", "on", brightness=200, friendly_name="Hall light")
    both = HaCall("light", "turn_on", frozenset({"light.living_room", "light.hall"}))
    widened = judge(
        DIM,
        [answer("Set Living room lamp and Hall light.")],
        Readings(NOW, home(LAMP_59, HALL_OFF), home(dimmed, hall_on), calls=[both]),
    )
    assert len(widened.widened) == 1 and widened.false_actions == []
    apart = [
        HaCall("light", "turn_on", frozenset({"light.living_room"})),
        HaCall("light", "turn_on", frozenset({"light.hall"})),
    ]
    false = judge(
        DIM,
        [answer("Set Living room lamp.")],
        Readings(NOW, home(LAMP_59, HALL_OFF), home(dimmed, hall_on), calls=apart),
    )
    assert false.false_actions == ["HA changed light.hall, which the case does not name"]


MESSAGE = parse_case(
    {
        "id": "m",
        "category": "messaging_todo",
        "user": "admin",
        "turns": ask("tell Anna dinner is ready", status="done"),
        "messages": [{"to": "notify.mobile_app_anna_phone", "contains": "dinner"}],
    }
)


def test_the_right_message_to_the_wrong_person_is_a_wrong_action() -> None:
    to_sam = HaCall("notify", "mobile_app_sam_phone", data={"message": "dinner is ready"})
    judged = judge(
        MESSAGE,
        [
            answer(
                "Sent your message to Sam phone.",
                executed("send_message", "notify.mobile_app_sam_phone"),
            )
        ],
        Readings(
            NOW,
            calls=[
                to_sam,
                HaCall("notify", "persistent_notification", data={"message": "dinner is ready"}),
            ],
        ),
    )
    assert judged.wrong_actions == [
        "HA was asked to deliver 'dinner is ready' to notify.mobile_app_sam_phone"
    ]
    assert judged.problems == [
        "no message containing 'dinner' reached notify.mobile_app_anna_phone"
    ]
    to_anna = HaCall("notify", "mobile_app_anna_phone", data={"message": "Dinner is ready"})
    # The demo's phones are notify groups: HA hands the message on to the sidebar, the same
    # text once more, which is the delivery of that one message, not a second one.
    handed_on = HaCall("notify", "persistent_notification", data={"message": "Dinner is ready"})
    right = judge(
        MESSAGE,
        [answer("Sent your message.", executed("send_message", "notify.mobile_app_anna_phone"))],
        Readings(NOW, calls=[to_anna, handed_on]),
    )
    assert right.passed


def test_a_record_that_claims_a_call_ha_never_received_is_a_false_claim() -> None:
    readings = Readings(NOW, calls=[])
    judged = judge(
        MESSAGE,
        [
            answer(
                "Sent your message to Anna phone.",
                executed("send_message", "notify.mobile_app_anna_phone"),
            )
        ],
        readings,
    )
    assert any("HA received no such call" in c for c in judged.false_claims)
    assert any("HA received no call" in c for c in judged.false_claims)


def test_speech_claims_are_read_against_what_ha_received() -> None:
    flight = case(
        turns=ask("book me a flight", status="refused"), no_change_because="not a home thing"
    )
    assert judge(flight, [answer("Booked a flight to Paris.")], Readings(NOW)).false_claims
    assert not judge(
        flight, [answer("Garage door is closed.", status="refused")], Readings(NOW)
    ).false_claims
    assert not judge(
        flight, [answer("Do you really want to open Garage door?", status="refused")], Readings(NOW)
    ).false_claims


def test_a_device_named_in_what_was_quoted_is_no_claim() -> None:
    """ "Sent “the hall light is still on” to Anna phone." quotes the message: it claims
    nothing of the hall light (dev message-names-a-device). Said outside quotes, it does."""
    to_anna = HaCall("notify", "mobile_app_anna_phone", data={"message": "the hall light is on"})
    readings = Readings(NOW, home(HALL_OFF), home(HALL_OFF), calls=[to_anna])
    sent = executed("send_message", "notify.mobile_app_anna_phone")
    quoted = answer("Sent “the hall light is still on” to Anna phone.", sent)
    assert not judge(MESSAGE, [quoted], readings).false_claims
    claimed = answer("Turned on Hall light and sent “dinner is ready” to Anna phone.", sent)
    assert judge(MESSAGE, [claimed], readings).false_claims == [
        "turn 1: 'Turned on Hall light and sent “dinner is ready” to Anna phone.' names "
        "Hall light, which HA did not change"
    ]


def test_the_calendar_judged_by_its_events() -> None:
    moved = parse_case(
        {
            "id": "e",
            "category": "calendar",
            "user": "admin",
            "turns": ask("move the dentist to 17:00"),
            "events": [{"summary_contains": "dentist", "start": "tomorrow 17:00"}],
        }
    )
    later = Event(
        "Dentist",
        datetime(2026, 12, 2, 17, 0, tzinfo=BERLIN),
        datetime(2026, 12, 2, 18, 0, tzinfo=BERLIN),
    )
    assert judge(
        moved,
        [answer("Moved it.")],
        Readings(
            NOW,
            events_before=[DENTIST],
            events_after=[later],
            calls=[HaCall("calendar", "update_event", frozenset({"calendar.family"}))],
        ),
    ).passed
    wrong_day = Event("Dentist", later.start.replace(day=1), later.end.replace(day=1))
    judged = judge(
        moved,
        [answer("Moved it.")],
        Readings(
            NOW,
            events_before=[DENTIST],
            events_after=[wrong_day],
            calls=[HaCall("calendar", "update_event", frozenset({"calendar.family"}))],
        ),
    )
    assert judged.wrong_actions and judged.problems
    unchanged = judge(
        moved,
        [answer("Which one?", status="needs_clarification")],
        Readings(NOW, events_before=[DENTIST], events_after=[DENTIST]),
    )
    assert unchanged.problems and not unchanged.unsafe
    swim = Event("Swimming", date(2026, 12, 5), date(2026, 12, 6))
    unasked = judge(
        DIM,
        [answer("Which lamp?", status="needs_clarification")],
        Readings(
            NOW, home(LAMP_59), home(LAMP_59), events_before=[DENTIST], events_after=[DENTIST, swim]
        ),
    )
    assert unasked.false_actions == ["HA's calendar gained 'Swimming' at 2026-12-05"]


def test_list_items_judged_by_the_list() -> None:
    eggs = parse_case(
        {
            "id": "i",
            "category": "messaging_todo",
            "user": "admin",
            "turns": ask("we need eggs"),
            "items": [{"summary": "eggs"}],
        }
    )
    start = [Item("milk", "needs_action"), Item("bread", "needs_action")]
    right = judge(
        eggs,
        [answer("Added eggs.")],
        Readings(
            NOW,
            items_before=start,
            items_after=[*start, Item("eggs", "needs_action")],
            calls=[HaCall("todo", "add_item", frozenset({"todo.shopping_list"}))],
        ),
    )
    assert right.passed
    wrong = judge(
        eggs,
        [answer("Added it.")],
        Readings(
            NOW,
            items_before=start,
            items_after=[
                *start,
                Item("we need eggs please", "needs_action"),
                Item("ham", "needs_action"),
            ],
            calls=[HaCall("todo", "add_item", frozenset({"todo.shopping_list"}))],
        ),
    )
    assert wrong.wrong_actions == ["HA's list gained 'ham' (needs_action)"]


def test_relative_changes_are_checked_by_direction() -> None:
    lamp = state("light.living_room", "on", brightness=150)
    assert matches(lamp, {"brightness_pct": {"below": 59}})  # unchanged: 59 %
    lamp["attributes"] = {"brightness": 100}
    assert matches(lamp, {"brightness_pct": {"below": 59}}) == []
    assert matches(lamp, {"brightness_pct": {"above": 59}})


def test_a_number_asked_for_is_that_number_and_only_a_brightness_rounds() -> None:
    thermostat = state("climate.kids_room", "heat", temperature=20.0)
    assert matches(thermostat, {"temperature": 19})  # "a degree down", nothing done
    thermostat["attributes"] = {"temperature": 19.0}
    assert matches(thermostat, {"temperature": 19}) == []
    lamp = state("light.office", "on", brightness=151)  # 60 % as HA keeps it: 59 %
    assert matches(lamp, {"brightness_pct": 60}) == []


def test_neither_baseline_passes_an_action_case() -> None:
    cases = [c for c in load_cases() if not c.deterministic]
    assert {c.kind for c in cases} == {ACTION, ANSWER, NO_CHANGE}
    for dev in cases:
        readings = Readings(NOW)
        for baseline in (REFUSE_ALL, DO_NOTHING):
            passed = judge(dev, [baseline] * len(dev.turns), readings).passed
            assert not (passed and dev.kind == ACTION), (dev.id, baseline)


def test_every_model_path_case_has_three_held_out_paraphrases_in_the_renamed_home() -> None:
    dev = load_cases()
    said = load_paraphrases()
    model_path = [c for c in dev if not c.deterministic]
    assert all(len(said[c.id]) == 3 for c in model_path)
    learnt = [c for c in dev if c.deterministic and c.id in said]  # by the fast path, since
    assert {c.id for c in learnt} >= {"back-door-question", "multi-blinds-and-lamp"}
    every = variants(dev, said, every=True)
    assert len(every) == 3 * (len(model_path) + len(learnt))
    original = {d.id: [t.say.casefold() for t in d.turns] for d in dev}
    assert all(c.split == HELDOUT for c in every)
    assert all([t.say.casefold() for t in c.turns] != original[c.id.split("~")[0]] for c in every)
    heldout = heldout_cases(dev)
    assert len(heldout) >= len(model_path) + 20
    assert len({c.id for c in heldout}) == len(heldout)
    no_tool = [c for c in heldout if c.id.startswith("heldout-no-tool-")]
    assert all(c.kind == NO_CHANGE and c.no_change_because for c in no_tool)


def test_every_model_path_case_has_ten_rewordings_apart_from_the_held_out_ones() -> None:
    dev = load_cases()
    model_path = [c for c in dev if not c.deterministic]
    reworded = reworded_cases(dev, every=True)
    assert len(reworded) == 10 * len(model_path)
    assert all(c.split == REWORDED and "~r" in c.id for c in reworded)
    assert len({c.id for c in reworded}) == len(reworded)
    said = [" / ".join(t.say.casefold() for t in c.turns) for c in reworded]
    original = {" / ".join(t.say.casefold() for t in c.turns) for c in dev}
    heldout = {
        " / ".join(turns).casefold() for cases in load_paraphrases().values() for turns in cases
    }
    assert not set(said) & (original | heldout)  # a tuning set apart from both
    assert set(load_paraphrases(REWORDINGS)) == {c.id for c in model_path}
    one = reworded_cases(dev)
    assert len(one) == len(model_path) and {c.split for c in one} == {REWORDED}


def test_the_renamed_home_renames_every_device_and_room_of_the_demo_home() -> None:
    from demo.paths import load_devices

    devices = load_devices()
    assert {e: name for e, (name, _area) in devices.placed_devices().items()} == {
        e: old for e, (old, _new) in RENAMED_HOME.entities.items()
    }
    assert {a: spec[0] for a, spec in devices.AREAS.items()} == {
        a: old for a, (old, _new) in RENAMED_HOME.areas.items()
    }
    assert RENAMED_HOME.say("Dim the living room lamp and close the living room blinds") == (
        "Dim the den floor lamp and close the den shutters"
    )
    assert RENAMED_HOME.say("it's cold in the Kids room") == "it's cold in the Nursery"


def _report(*outcomes: Outcome, split: str = "dev") -> dict[str, Any]:
    run = RunResult(split, 1, NOW.isoformat(), list(outcomes))
    return summarize([run], stand_in=False, model="qwen2.5-coder-0.5b (Q4_K_M)")


def test_the_report_gives_action_and_no_change_rates_beside_the_baselines() -> None:
    refused = Outcome(
        DIM, passed=False, statuses=["refused"], paths=["model"], latencies_ms=[900.0]
    )
    refused.baselines = {"refuse_all": False, "do_nothing": False}
    wrong = Outcome(DIM, passed=False, statuses=["done"], paths=["model"], latencies_ms=[1500.0])
    wrong.wrong_actions = ["light.living_room.brightness_pct is 100 (HA changed it)"]
    report = _report(refused, wrong)
    overall = report["runs"][0]["overall"]
    assert overall[ACTION] == {
        "cases": 2,
        "passed": 0,
        "rate": 0.0,
        "refuse_all": 0,
        "do_nothing": 0,
    }
    assert overall["wrong_actions"] == 1
    assert overall["model_turns"] == {"turns": 2, "p50_ms": 1200.0, "p95_ms": 1500.0}
    slowest = report["runs"][0]["slowest_model_turns"]
    assert [t["ms"] for t in slowest] == [1500.0, 900.0]
    assert slowest[0] == {"case": DIM.id, "say": DIM.turns[0].say, "ms": 1500.0, "steps": ""}
    text = markdown(report)
    assert f"1500 ms: {DIM.id}" in text
    assert "baseline: refuse all" in text and "wrong action: light.living_room" in text
    assert "not BotPsy" in text
    assert check_floors(report, {"qwen2.5-coder-0.5b": {"dev": 0.5}}) == [
        "dev run 1: 1 wrong actions (must be 0)",
        "dev run 1: action cases 0%, floor 50%",
    ]
    assert result_stem("qwen2.5-coder-0.5b (Q4_K_M)", "2026-12-02", "heldout") == (
        "eval-qwen2.5-coder-0.5b-2026-12-02-heldout"
    )


def test_a_model_turns_steps_say_where_its_time_went() -> None:
    timings = {
        "model_ms": 12000.0,
        "steps": [
            {
                "step": 0,
                "total_ms": 11000.0,
                "evaluated_tokens": 1863,
                "prompt_ms": 10500.0,
                "build_ms": 10300.0,
                "sampled_tokens": 11,
                "forced_tokens": 21,
                "generation_ms": 500.0,
            },
            {
                "step": 1,
                "total_ms": 1000.0,
                "evaluated_tokens": 199,
                "prompt_ms": 600.0,
                "sampled_tokens": 9,
                "forced_tokens": 0,
                "generation_ms": 400.0,
            },
        ],
    }
    said = step_breakdown(timings)
    assert said == (
        "step 0 11000 ms: 1863 tokens in 10500 ms, prefix built 10300 ms, 11 sampled + 21 "
        "forced in 500 ms; step 1 1000 ms: 199 tokens in 600 ms, 9 sampled + 0 forced in 400 ms"
    )
    assert step_breakdown(None) == step_breakdown({}) == ""
    slow = Outcome(DIM, passed=True, paths=["model"], latencies_ms=[12100.0], model_steps=[said])
    (turn,) = slowest_model_turns([slow])
    assert turn["steps"] == said and said in markdown(_report(slow))


def test_the_report_says_how_long_the_app_prepared_before_its_turns() -> None:
    slow = Outcome(DIM, passed=True, paths=["model"], latencies_ms=[1200.0])
    assert "prepared its people's prompts" not in markdown(_report(slow))
    run = RunResult("heldout", 1, NOW.isoformat(), [slow], prepared_s=12.34)
    report = summarize([run], stand_in=False, model="qwen2.5-coder-0.5b (Q4_K_M)")
    assert report["runs"][0]["prepared_s"] == 12.3
    assert "prepared its people's prompts" in markdown(report)
    assert "heldout 1: 12.3 s" in markdown(report)


def test_a_report_from_before_the_group_fix_is_corrected_exactly() -> None:
    message = MESSAGE
    sent = executed("send_message", "notify.mobile_app_anna_phone")
    sent["arguments"] = {"message": "Dinner is ready"}
    handed_on = "HA was asked to deliver 'Dinner is ready' to notify.persistent_notification"
    only_the_hand_on = Outcome(message, passed=False, statuses=["done"], paths=["model"])
    only_the_hand_on.wrong_actions = [handed_on]
    only_the_hand_on.turns = [{"say": "tell Anna", "actions": [sent]}]
    another = Outcome(message, passed=False, statuses=["done"], paths=["model"])
    another.wrong_actions = [handed_on.replace("Dinner", "Lunch")]  # not what was sent
    another.turns = [{"say": "tell Anna", "actions": [sent]}]
    report = _report(only_the_hand_on, another)
    assert correct(report) == 1
    overall = report["runs"][0]["overall"]
    assert overall[ACTION]["passed"] == 1 and overall["wrong_actions"] == 1
    assert [f["wrong_actions"] for f in report["runs"][0]["failures"]] == [
        ["HA was asked to deliver 'Lunch is ready' to notify.persistent_notification"]
    ]
    assert "Corrected after the run" in markdown(report)


def test_a_calendar_command_is_judged_by_the_calendar_not_by_service_calls() -> None:
    cancel = parse_case(
        {
            "id": "d",
            "category": "calendar",
            "user": "admin",
            "turns": ask("cancel the dentist"),
            "events": [{"summary_contains": "dentist", "absent": True}],
        }
    )
    deleted = answer("Deleted the event.", executed("delete_event", "calendar.family"))
    gone = Readings(NOW, events_before=[DENTIST], events_after=[])
    assert judge(cancel, [deleted], gone).passed  # HA's calendar/event/delete: no call_service
    kept = Readings(NOW, events_before=[DENTIST], events_after=[DENTIST])
    assert judge(cancel, [deleted], kept).false_claims
