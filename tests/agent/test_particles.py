"""Korean particles chosen by the final sound of the name before them (issue 29): what the
app says reads as a Korean speaker says it ("무드등을 켰어요", "TV를 껐어요"), never "을(를)",
and states are said in Korean ("꺼짐"), as HA's own responses do."""

from __future__ import annotations

import pytest

from botpsy_agent.agent.particles import attach
from botpsy_agent.agent.replies import Replies
from botpsy_agent.agent.speech import Phrasebook
from botpsy_agent.home.model import Entity, EntityState, Home

PHRASES = Phrasebook()


@pytest.mark.parametrize(
    ("key", "values", "said"),
    [
        ("done.turn_on", {"targets": "무드등"}, "무드등을 켰어요."),
        ("done.turn_off", {"targets": "커튼 조명"}, "커튼 조명을 껐어요."),
        ("done.turn_off", {"targets": "선풍기"}, "선풍기를 껐어요."),
        ("done.turn_on", {"targets": "TV"}, "TV를 켰어요."),
        ("done.set_number", {"targets": "볼륨", "value": "50"}, "볼륨을 50으로 설정했어요."),
        ("done.select_option", {"targets": "모드", "option": "거실"}, "모드를 거실로 설정했어요."),
        (
            "done.select_option",
            {"targets": "모드", "option": "부엌"},
            "모드를 부엌으로 설정했어요.",
        ),
        ("refused.denied_by_rule", {"targets": "현관문"}, "죄송해요, 현관문은 허용되지 않아요."),
        ("state.entities", {"items": "에어컨"}, "에어컨이 있어요."),
        (
            "answer.yes_these",
            {"items": "뒷문", "state": "잠금 해제"},
            "네, 뒷문이 잠금 해제 상태예요.",
        ),
    ],
)
def test_korean_sentences_take_the_particle_the_name_needs(
    key: str, values: dict[str, str], said: str
) -> None:
    assert PHRASES.say("ko", key, **values) == said


def test_no_korean_sentence_writes_both_particles() -> None:
    text = (PHRASES.directory / "ko.yaml").read_text(encoding="utf-8")
    for both in ("을(를)", "이(가)", "은(는)", "(으)로"):
        assert both not in text


@pytest.mark.parametrize(
    ("word", "forms", "joined"),
    [
        ("커튼", "이/가", "커튼이"),
        ("조명", "은/는", "조명은"),
        ("스피커", "이/가", "스피커가"),
        ("Hall", "으로/로", "Hall로"),
        ("Kitchen", "을/를", "Kitchen을"),
        ("Lamp", "을/를", "Lamp를"),
        ("3", "을/를", "3을"),
        ("", "을/를", "을(를)"),
    ],
)
def test_the_final_sound_decides(word: str, forms: str, joined: str) -> None:
    assert attach(word, forms) == joined


@pytest.mark.parametrize(("language", "said"), [("ko", "무드등: 꺼짐."), ("id", "무드등: mati.")])
def test_states_are_said_in_the_language(language: str, said: str) -> None:
    home = Home.of([Entity("light.mood", "무드등")], states=[EntityState("light.mood", "off")])
    assert Replies(PHRASES).states(language, home, home.states.values(), names_only=False) == said
