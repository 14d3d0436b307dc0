"""The held-out set: the model-path cases as the app has never seen them.

Each model-path case of the dev set (tests/eval/cases) is turned into variants that no word
list, prompt or grammar was tuned on:

* its conversation said in other words (tests/eval/heldout/paraphrases.yaml, three per case,
  written without looking at the app's word lists);
* in the same home with every device and room renamed from a word bank (`RENAMED_HOME`):
  the evaluation renames them in HA's registries, as a person would in the UI, and the
  variants' words use the new names;
* plus requests the app has no tool for that share verbs with tools it has
  (tests/eval/heldout/no_tool.yaml: timers, titles to play, scenes and sensors it lacks).

The expectations stay the dev case's (the same entity ids and outcomes), so a variant is
judged exactly as its original. Word lists, prompts and grammar change only from dev misses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
import re
import zlib

import yaml

from tests.eval.cases import (
    HELDOUT,
    REWORDED,
    Case,
    CaseError,
    Turn,
    parse_case,
)

FOLDER = Path(__file__).parent / "heldout"
PARAPHRASES = FOLDER / "paraphrases.yaml"
REWORDINGS = Path(__file__).parent / "reworded.yaml"
"""Dev cases in other words, written apart from the held-out ones: a second tuning set, so
that a rule is found on more than one way of saying a case (outside `FOLDER` on purpose)."""
NO_TOOL = FOLDER / "no_tool.yaml"
KEPT_PATHS = frozenset({"confirmation"})
"""Turn paths a variant still expects: another wording may reach the fast path or the model."""


@dataclass(frozen=True)
class RenamedHome:
    """New names for the demo home's devices and rooms (entity ids and area ids stay)."""

    entities: Mapping[str, tuple[str, str]]
    """entity id -> (its name in the demo home, the new name)"""
    areas: Mapping[str, tuple[str, str]]
    """area id -> (its name in the demo home, the new name)"""

    def phrases(self) -> list[tuple[str, str]]:
        """Old phrase -> new phrase, devices before rooms, longest first, so that "living
        room lamp" becomes "den floor lamp" and only then "living room" becomes "den"."""
        devices = sorted(self.entities.values(), key=lambda pair: -len(pair[0]))
        rooms = sorted(self.areas.values(), key=lambda pair: -len(pair[0]))
        return [*devices, *rooms]

    def say(self, text: str) -> str:
        """`text` with the home's old names replaced by the new ones."""
        for old, new in self.phrases():
            text = re.sub(
                rf"(?<!\w){re.escape(old)}(?!\w)",
                lambda found, new=new: _same_case(found.group(0), new),
                text,
                flags=re.IGNORECASE,
            )
        return text


def _same_case(found: str, new: str) -> str:
    if found[:1].isupper():
        return new[:1].upper() + new[1:]
    return new.casefold() if found.islower() else new


RENAMED_HOME = RenamedHome(
    entities={
        "light.kitchen": ("Kitchen light", "Galley ceiling light"),
        "light.kitchen_counter": ("Counter lights", "Worktop strip"),
        "light.living_room": ("Living room lamp", "Den floor lamp"),
        "light.reading_lamp": ("Reading lamp", "Armchair lamp"),
        "light.hall": ("Hall light", "Foyer pendant"),
        "light.bedroom": ("Bedroom light", "Loft light"),
        "light.kids_room": ("Kids room light", "Nursery light"),
        "light.office": ("Office light", "Library light"),
        "light.garage": ("Garage light", "Workshop light"),
        "switch.coffee_machine": ("Coffee machine", "Espresso maker"),
        "switch.tv_plug": ("TV plug", "Media socket"),
        "switch.fairy_lights": ("Fairy lights", "String lights"),
        "switch.office_heater": ("Office heater", "Library heater"),
        "cover.living_room_blinds": ("Living room blinds", "Den shutters"),
        "cover.bedroom_blinds": ("Bedroom blinds", "Loft shutters"),
        "cover.garage_door": ("Garage door", "Workshop door"),
        "lock.front_door": ("Front door", "Street door"),
        "lock.back_door": ("Back door", "Garden door"),
        "fan.bedroom": ("Bedroom fan", "Loft fan"),
        "fan.kids_room": ("Kids room fan", "Nursery fan"),
        "climate.living_room": ("Living room thermostat", "Den thermostat"),
        "climate.kids_room": ("Kids room thermostat", "Nursery thermostat"),
        "media_player.living_room_tv": ("Living room TV", "Den television"),
        "media_player.kids_speaker": ("Kids speaker", "Nursery speaker"),
    },
    areas={
        "kitchen": ("Kitchen", "Galley"),
        "living_room": ("Living room", "Den"),
        "hall": ("Hall", "Foyer"),
        "garage": ("Garage", "Workshop"),
        "bedroom": ("Bedroom", "Loft"),
        "kids_room": ("Kids room", "Nursery"),
        "office": ("Office", "Library"),
    },
)


def load_paraphrases(path: Path = PARAPHRASES) -> dict[str, list[list[str]]]:
    """Case id -> its paraphrases, each a list of turns (`PARAPHRASES` or `REWORDINGS`)."""
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(raw, dict):
        raise CaseError(path.name, "not_a_mapping", "case id -> a list of paraphrased turns")
    return {str(k): [list(map(str, entry)) for entry in v] for k, v in raw.items()}


def variants(
    dev: Sequence[Case],
    paraphrases: Mapping[str, Sequence[Sequence[str]]],
    home: RenamedHome = RENAMED_HOME,
    *,
    every: bool = False,
    split: str = HELDOUT,
) -> list[Case]:
    """The held-out variants of the dev set's model-path cases, in the renamed home: one
    paraphrase per case (which one, a stable function of the case id), or `every` one.

    A dev case the fast path has since learnt (now `path: fast_path`) keeps its variants:
    their words are still unseen, so the held-out set stays the same set across versions."""
    found: list[Case] = []
    for case in dev:
        said = paraphrases.get(case.id)
        if case.deterministic and not said:
            continue
        if not said:
            raise CaseError(case.source, "no_paraphrase", f"{case.id} has no held-out paraphrase")
        chosen = range(len(said)) if every else [zlib.crc32(case.id.encode()) % len(said)]
        found += [variant(case, said[k], home, k, split) for k in chosen]
    return found


def variant(
    case: Case, said: Sequence[str], home: RenamedHome, number: int, split: str = HELDOUT
) -> Case:
    if len(said) != len(case.turns):
        raise CaseError(case.source, "bad_paraphrase", f"{case.id}: {len(case.turns)} turns")
    turns = tuple(
        Turn(
            home.say(text),
            turn.statuses,
            turn.path if turn.path in KEPT_PATHS else None,
            home.say(turn.speech) if turn.speech else None,
        )
        for turn, text in zip(case.turns, said, strict=True)
    )
    mark = "r" if split == REWORDED else ""
    return replace(
        case,
        id=f"{case.id}~{mark}{number + 1}",
        turns=turns,
        answer_contains=tuple(home.say(fact) for fact in case.answer_contains),
        split=split,
    )


def no_tool_cases(home: RenamedHome = RENAMED_HOME, path: Path = NO_TOOL) -> list[Case]:
    """Requests the app has no tool for, said in the renamed home."""
    raw_cases = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    cases = [parse_case(raw, path.name) for raw in raw_cases]
    return [
        replace(
            c,
            turns=tuple(replace(t, say=home.say(t.say)) for t in c.turns),
            split=HELDOUT,
        )
        for c in cases
    ]


def reworded_cases(dev: Sequence[Case], *, every: bool = False) -> list[Case]:
    """The dev set's model-path cases in other words (`REWORDINGS`), in the demo home as
    named: tuning data like the dev cases, and not a held-out figure."""
    as_written = RenamedHome(entities={}, areas={})
    return variants(dev, load_paraphrases(REWORDINGS), as_written, every=every, split=REWORDED)


def heldout_cases(dev: Sequence[Case], *, every: bool = False) -> list[Case]:
    return [*variants(dev, load_paraphrases(), every=every), *no_tool_cases()]
