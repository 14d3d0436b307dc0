"""The templates hassil is handed are only those a sentence can match (words/template_index):
on every sentence of the coverage bench, in each language, the best match is the one hassil
finds among all of the language's templates, and most of them are never tried."""

from __future__ import annotations

from functools import cache

from hassil import Intents, RecognizeResult, SlotList, recognize_best
import pytest

from bench.coverage.recognition import house_home
from bench.coverage.sentences import sentences
from botpsy_agent.words.recognizer import HOME_LISTS, _intents, _slot_lists, _templates
from botpsy_agent.words.template_index import TemplateIndex


@cache
def _lists(pass_name: str) -> dict[str, SlotList]:
    return _slot_lists(house_home(pass_name))


def _best(text: str, intents: Intents, pass_name: str, area: str | None) -> object:
    found = recognize_best(
        text,
        intents,
        slot_lists=_lists(pass_name),
        intent_context={"area": area} if area else None,
        language=intents.language,
        best_slot_name="name",
    )
    return _as_compared(found)


def _as_compared(found: RecognizeResult | None) -> object:
    if found is None:
        return None
    return (
        found.intent.name,
        id(found.intent_data),
        found.intent_sentence.text if found.intent_sentence else None,
        sorted((e.name, str(e.value), e.text, e.text_span) for e in found.entities_list),
        found.text_chunks_matched,
        [(e.name, e.text) for e in found.unmatched_entities],
    )


def _templates_of(language: str) -> TemplateIndex:
    templates = _templates(language)
    assert templates is not None
    return templates


def _language_intents(language: str) -> Intents:
    intents = _intents(language)
    assert intents is not None
    return intents


@pytest.mark.parametrize("pass_name", ["en", "ko", "id", "ko-renamed", "id-renamed"])
def test_the_best_match_is_the_one_among_all_templates(pass_name: str) -> None:
    language = pass_name.split("-", 1)[0]
    intents, templates = _language_intents(language), _templates_of(language)
    said = [s.text for s in sentences(pass_name)]
    found = 0
    for number, text in enumerate(said):
        # every fifth sentence also as said to a satellite in the kitchen
        area = "kitchen" if number % 5 == 0 else None
        expected = _best(text, intents, pass_name, area)
        assert _best(text, templates.narrowed(text), pass_name, area) == expected, text
        found += expected is not None
    assert found > len(said) // 10  # the comparison saw matches, not only misses


def test_most_templates_are_never_tried() -> None:
    all_blocks = sum(len(i.data) for i in _language_intents("en").intents.values())
    kept = _templates_of("en").narrowed("turn on the kitchen light").intents
    assert sum(len(i.data) for i in kept.values()) < all_blocks // 10
    assert "HassTurnOn" in kept
    assert "HassGetWeather" not in kept


def _colour_blocks(text: str) -> list[str]:
    kept = _templates_of("en").narrowed(text).intents.get("HassLightSet")
    return [
        t for data in (kept.data if kept else []) for t in data.sentence_texts if "{color}" in t
    ]


def test_a_template_that_needs_a_colour_is_tried_only_when_one_is_said() -> None:
    # "[<set>] [<the>] {area} [to] {color}" has no word of its own: only a colour tells
    assert _colour_blocks("turn the kitchen light red")
    assert not _colour_blocks("turn on the kitchen light")


def test_the_homes_lists_never_narrow() -> None:
    """A list the caller passes with each sentence may hold anything: its values in the
    language's intents (if it had them) say nothing."""
    intents = _language_intents("en")
    with_area = Intents(
        intents.language,
        intents.intents,
        slot_lists={**intents.slot_lists, "area": _lists("en-renamed")["area"]},
        expansion_rules=intents.expansion_rules,
        skip_words=intents.skip_words,
        settings=intents.settings,
    )
    text = "turn on the lights in the kitchen"
    assert "HassTurnOn" in TemplateIndex(with_area, HOME_LISTS).narrowed(text).intents
    found = _best(text, TemplateIndex(with_area, HOME_LISTS).narrowed(text), "en", None)
    assert found == _best(text, intents, "en", None)
    assert found is not None
