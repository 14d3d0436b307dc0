"""The fast-path coverage bench's home and sentences (bench/coverage/), without HA: every
template is said in every pass of its language, with what it means in that home; the
renamed pass shares no name with the first; Korean particles follow the name."""

from __future__ import annotations

from collections import Counter

import pytest
import yaml

from bench.coverage import home
from bench.coverage.sentences import (
    DEV,
    FOLDER,
    HELD_OUT,
    LANGUAGES,
    korean_particle,
    sentences,
    template_counts,
    templates,
)


@pytest.mark.parametrize("pass_name", home.PASSES)
def test_every_template_is_said_in_every_pass(pass_name: str) -> None:
    said = sentences(pass_name)
    language = pass_name.split("-", 1)[0]
    assert {s.template for s in said} == {t.say for t in templates(language)}
    known = set(home.by_id())
    for sentence in said:
        assert "{" not in sentence.text, sentence.text
        assert sentence.entities <= known, sentence.text
        assert sentence.entities or sentence.tool not in {"turn_on", "get_state"}, sentence.text


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_family_has_a_dev_and_a_held_out_part(language: str) -> None:
    for family, parts in template_counts(language).items():
        assert parts[DEV] >= 1 and parts[HELD_OUT] >= 1, family
        assert parts[DEV] - parts[HELD_OUT] in {0, 1}, family


def test_added_templates_keep_their_part_and_the_rounds_before_their_things() -> None:
    data = yaml.safe_load((FOLDER / "en.yaml").read_text(encoding="utf-8"))
    first = [e["say"] for entries in data["families"].values() for e in entries]
    rounds = ["added", *(f"added_{n}" for n in range(3, 12))]
    assert [key for key in data if key not in {"families", "language"}] == rounds
    added = [e for key in rounds for entries in data[key].values() for e in entries]
    said = templates("en")
    assert [t.say for t in said[: len(first)]] == first
    assert [t.number for t in said] == list(range(len(said)))
    # each round after the ones before it, in its own order: a new round moves no sentence
    later = said[len(first) :]
    assert [(t.say, t.split) for t in later] == [(e["say"], e["part"]) for e in added]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_has_the_same_families(language: str) -> None:
    assert list(template_counts(language)) == list(template_counts("en"))


def test_a_named_thing_is_said_by_its_name_in_each_pass() -> None:
    for pass_name in home.PASSES:
        for sentence in sentences(pass_name):
            if sentence.template.startswith("{light}"):
                (entity_id,) = sentence.entities
                assert sentence.text.startswith(home.by_id()[entity_id].name(pass_name))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_renamed_pass_shares_no_name_with_the_first(language: str) -> None:
    first, renamed = language, f"{language}-renamed"
    for thing in home.things():
        assert thing.name(first) != thing.name(renamed), thing.entity_id
    for area_id in home.ROOMS:
        assert home.area_name(area_id, first) != home.area_name(area_id, renamed)
    for floor_id in home.FLOORS:
        assert home.floor_name(floor_id, first) != home.floor_name(floor_id, renamed)


@pytest.mark.parametrize("pass_name", home.PASSES)
def test_names_are_unique_in_each_pass(pass_name: str) -> None:
    names = Counter(t.name(pass_name).casefold() for t in home.things())
    assert [n for n, count in names.items() if count > 1] == []


def test_the_house_is_a_home_of_250_entities_in_ha_yaml() -> None:
    config = yaml.safe_load(home.ha_yaml())
    made = {
        f"{domain}.{entry['name']}"
        for block in config["template"]
        for domain, entries in block.items()
        for entry in entries
    }
    made |= {f"scene.{scene['name']}" for scene in config["scene coverage"]}
    own = {t.entity_id for t in home.things() if not t.demo}
    assert own - {"todo.shopping_list"} == made
    assert len(home.things()) >= 230  # HA's own entities and the demo's bring it to 250


@pytest.mark.parametrize(
    ("word", "particle", "said"),
    [
        ("주방 천장등", "을", "을"),
        ("거실 스탠드", "을", "를"),
        ("거실 TV", "을", "를"),
        ("현관문", "이", "이"),
        ("거실", "으로", "로"),
        ("영화 모드", "으로", "로"),
        ("주방", "은", "은"),
    ],
)
def test_korean_particles_follow_the_name(word: str, particle: str, said: str) -> None:
    assert korean_particle(word, particle) == said


def test_either_alternative_of_an_expectation_is_right() -> None:
    """ "what is the Living room temperature": the room's thermostat (what HA's agent reads)
    or the sensor called "Living room temperature" (what the words name) are both right;
    a light is not."""
    said = next(s for s in sentences("en") if s.text == "what is the Living room temperature")
    assert said.entities == {"climate.living_room"}
    assert said.right(frozenset({"climate.living_room"}))
    assert said.right(frozenset({"sensor.living_room_temperature"}))
    assert not said.right(frozenset({"light.living_room"}))
