"""The fast path's fallback (words/fuzzy.py, issue 14 defect 7) on the real HA test home:
a misspelt name or filler words still reach the strict templates, and a mended sentence
never acts on a lock, a cover or anything but a harmless device."""

from __future__ import annotations

from difflib import SequenceMatcher
from random import Random
from typing import Any

import pytest

from botpsy_agent.home.model import Area, Entity, Home
from botpsy_agent.words import fuzzy, guess
from botpsy_agent.words.recognizer import FastPath
from tests.ha_bridge import HaBridge


@pytest.fixture
def home(ha_bridge: HaBridge) -> Home:
    return ha_bridge.index.home


def calls_of(sentence: str, home: Home) -> list[tuple[str, dict[str, Any]]] | None:
    recognized = FastPath().recognize(sentence, "en", home)
    if recognized is None:
        return None
    return [(c.name, c.model_dump(exclude_none=True, mode="json")) for c in recognized.calls]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("turn on the bed lihgt", [("turn_on", {"entity_id": ["light.bed_light"]})]),
        ("switch off the kitchn lights", [("turn_off", {"entity_id": ["light.kitchen_lights"]})]),
        (
            "turn on the ceiling lights for me please, thanks",
            [("turn_on", {"entity_id": ["light.ceiling_lights"]})],
        ),
    ],
)
async def test_a_misspelt_name_or_fillers_still_match(
    home: Home, sentence: str, expected: list[tuple[str, dict[str, Any]]]
) -> None:
    recognized = FastPath().recognize(sentence, "en", home)
    assert recognized is not None, sentence
    assert recognized.mended is not None  # the strict templates alone missed it
    assert calls_of(sentence, home) == expected


@pytest.mark.parametrize(
    "sentence",
    [
        "unlock the back dor",  # lock.back_door
        "open the garage dor please",  # cover.garage_door
        "close the kitchen windw",  # cover.kitchen_window
    ],
)
async def test_a_mended_sentence_never_opens_or_unlocks(home: Home, sentence: str) -> None:
    assert fuzzy.mend(sentence, "en", home) is not None  # it was mended ...
    assert FastPath().recognize(sentence, "en", home) is None  # ... and left to the model


async def test_a_word_close_to_two_names_is_not_guessed(home: Home) -> None:
    # "ceiling" + "lights": "kitchen lights" and "ceiling lights" are both names; a run
    # half-way between them is neither.
    assert fuzzy.mend("turn on the kitcheng lights", "en", home) in {
        None,
        "turn on the kitchen lights",
    }
    names = {e.name.casefold() for e in home.entities.values()}
    assert "ceiling lights" in names and "kitchen lights" in names


async def test_a_sentence_nothing_can_mend_stays_unmatched(home: Home) -> None:
    assert fuzzy.mend("turn on the bed light", "en", home) is None
    assert FastPath().recognize("make me a sandwich please", "en", home) is None


def test_a_room_and_a_word_of_the_homes_names_is_not_mended_into_a_name() -> None:
    """ "마당 조명 밝기 30%로" is the garden's lights at 30 %: "마당" is the room and "조명" a
    word the home's names use, so nothing is misspelt; the coverage bench found it mended
    into the one garden light "마당 벽조명" (one light set instead of three)."""
    home = Home.of(
        [
            Entity("light.garden_wall", "마당 벽조명", "garden"),
            Entity("light.garden_path", "마당 잔디 조명", "garden"),
            Entity("light.mirror", "화장실 거울 조명", "bathroom"),
        ],
        [Area("garden", "마당"), Area("bathroom", "화장실")],
    )
    assert fuzzy.mend("마당 조명 밝기 30%로", "ko", home) is None
    assert (
        fuzzy.mend("마당 잔디 조멍 켜줘", "ko", home) == "마당 잔디 조명 켜줘"
    )  # misspelt: mended


@pytest.mark.parametrize(
    ("said", "misspelt"),
    [
        ("I need the lights on in the office", "I need the lights on in the ofice"),
        ("I need the bed light on", "I need the bedd light on"),
        ("did I leave the bed light on", "did I leave the bed lihgt on"),
        ("switch the bed light off and the AC on", "swich the bed light off and the AC on"),
    ],
)
async def test_the_fallback_reader_reads_words_only_as_said(
    home: Home, said: str, misspelt: str
) -> None:
    # HA's reader (D96) guesses at a sentence; a misspelling is ours to mend, not a second
    # guess of the reader's
    reader = guess.Reader()
    assert reader.frames(said, home, None)
    assert reader.frames(misspelt, home, None) is None


def test_the_quick_bounds_never_rule_out_a_close_name(home: Home) -> None:
    # The mend compares a run with a name only past two cheap bounds on difflib's ratio;
    # a bound that were wrong would miss a misspelling difflib itself finds close.
    names = fuzzy._home_names(home)
    random = Random(29)
    tried = found = 0
    for by_length in names.by_size.values():
        for name in (n.text for group in by_length.values() for n in group):
            for _ in range(6):
                letters = list(name)
                spot = random.randrange(len(letters))
                letters[spot : spot + random.choice((0, 1, 2))] = random.choice(("", "e", "ie"))
                run = "".join(letters)
                close = [
                    n.text
                    for length, group in by_length.items()
                    if abs(len(run) - length) <= max(length // 5, 1)
                    for n in group
                    if SequenceMatcher(None, run, n.text).ratio() >= fuzzy.NAME_SIMILARITY
                ]
                expected = close[0] if len(close) == 1 else None
                assert fuzzy._the_close_name(run, by_length) == expected, (run, close)
                tried, found = tried + 1, found + (expected is not None)
    assert tried > 100 and found > tried // 4  # mostly mendable misspellings were tried
