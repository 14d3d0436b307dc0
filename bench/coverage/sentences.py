"""The coverage bench's sentences: templates per language (sentences/<language>.yaml), said
with the names of one pass of the home (bench/coverage/home.py).

A template says what a right answer does: the tool, the entities it acts on or reads
(exactly), and the parameters that must be in the call. Its slots name a kind of thing
(`{light}`, `{lock}`, …), a room (`{area}`) or a floor (`{floor}`); each template is said
with up to two things (or rooms) of its kind, chosen in a fixed rotation, so a language's
set is the same in every run. Korean particles follow the name they attach to:
`{light|을}` is "주방 천장등을" but "거실 스탠드를".

The expectation (`expect`) is `named` (the thing in the slot; the default when there is
one), `none` (no entity: timers, the clock, broadcasts), or parts joined by ` + `, each a
domain with optional device classes and a place: `light@area`, `cover:blind@home`,
`binary_sensor:motion@area`; `a | b` expects the first that is not empty in that place
("the temperature in the kitchen": its thermostat, else its temperature sensors) and
accepts the others ("the living room temperature" may be the sensor of that name).

Every family's templates alternate between a dev part (the first, third, … template) and a
held-out part (the second, fourth, …): word lists of the fast path may change only from
misses of the dev part (bench/results say which part each figure is from). Templates written
in a later round (`added:`, then `added_3:`, `added_4:`, …) say their part (`part: dev` or
`held_out`) and are numbered after all the rounds before, so their sentences keep the things
they are said with.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
import itertools
from pathlib import Path
import re
from typing import Any

import yaml

from bench.coverage.home import FLOORS, ROOMS, Thing, area_name, floor_name, things

FOLDER = Path(__file__).parent / "sentences"
LANGUAGES = ("en", "ko", "id")
DEV, HELD_OUT = "dev", "held_out"
LATER_ROUND = re.compile(r"added(_\d+)?")
"""The keys of later rounds of templates: each says its templates' parts."""
PER_TEMPLATE = 2
"""How many things (or rooms) each template is said with."""

COLOR_LIGHTS = frozenset({"light.kitchen", "light.living_room", "light.bedroom", "light.kids_room"})
"""The demo's lights that take colours."""

SELECTORS: Mapping[str, Callable[[Thing], bool]] = {
    "light": lambda t: t.domain == "light",
    "color_light": lambda t: t.entity_id in COLOR_LIGHTS,
    "switch": lambda t: t.domain == "switch",
    "fan": lambda t: t.domain == "fan",
    "blinds": lambda t: t.domain == "cover" and t.device_class in {"blind", "curtain"},
    "window": lambda t: t.domain == "cover" and t.device_class == "window",
    "garage_door": lambda t: t.domain == "cover" and t.device_class == "garage",
    "lock": lambda t: t.domain == "lock",
    "thermostat": lambda t: t.domain == "climate",
    "tv": lambda t: t.kind == "tv",
    "speaker": lambda t: t.kind == "speaker",
    "scene": lambda t: t.domain == "scene",
    "script": lambda t: t.domain == "script",
    "vacuum": lambda t: t.domain == "vacuum",
    "list": lambda t: t.domain == "todo",
    "sensor": lambda t: t.domain == "sensor",
    "temp_sensor": lambda t: t.domain == "sensor" and t.device_class == "temperature",
    "humidity_sensor": lambda t: t.domain == "sensor" and t.device_class == "humidity",
    "power_sensor": lambda t: t.domain == "sensor" and t.device_class == "power",
    "window_sensor": lambda t: t.domain == "binary_sensor" and t.device_class == "window",
}
SLOT = re.compile(r"\{(\w+)(?:\|([^}]+))?\}")


@dataclass(frozen=True)
class Template:
    say: str
    family: str
    tool: str
    expect: str
    params: Mapping[str, Any]
    split: str
    number: int
    """Its place in its language's file (for the rotation of what it is said with)."""


@dataclass(frozen=True)
class Sentence:
    text: str
    family: str
    tool: str
    entities: frozenset[str]
    params: Mapping[str, Any] = field(default_factory=dict)
    split: str = DEV
    template: str = ""
    accepted: tuple[frozenset[str], ...] = ()
    """Every set of entities a right answer may act on or read: `entities` first, then the
    other alternatives of an `a | b` expectation ("the living room temperature" is the
    room's thermostat, or the sensor of that name)."""

    def right(self, found: frozenset[str]) -> bool:
        return found == self.entities or found in self.accepted


@cache
def templates(language: str) -> tuple[Template, ...]:
    data = yaml.safe_load((FOLDER / f"{language}.yaml").read_text(encoding="utf-8"))
    out: list[Template] = []
    for family, entries in data["families"].items():
        for place, entry in enumerate(entries):
            out.append(_template(entry, family, HELD_OUT if place % 2 else DEV, len(out)))
    # later rounds, in the file's order ("added", "added_3", …): each only appends, so the
    # sentences of the rounds before keep their numbers, and so their things
    rounds = [key for key in data if LATER_ROUND.fullmatch(key)]
    for family, entries in (e for key in rounds for e in data[key].items()):
        if family not in data["families"]:
            raise ValueError(f"{language}: added templates of an unknown family {family!r}")
        for entry in entries:
            if entry.get("part") not in {DEV, HELD_OUT}:
                raise ValueError(f"{entry['say']!r}: part is {DEV} or {HELD_OUT}")
            out.append(_template(entry, family, entry["part"], len(out)))
    return tuple(out)


def _template(entry: Mapping[str, Any], family: str, split: str, number: int) -> Template:
    slots = [s for s, _ in SLOT.findall(entry["say"]) if s in SELECTORS]
    expect = entry.get("expect") or ("named" if slots else "none")
    return Template(
        entry["say"], family, entry["tool"], expect, entry.get("with") or {}, split, number
    )


def sentences(pass_name: str) -> list[Sentence]:
    """Every sentence of one pass, in a stable order."""
    language = pass_name.split("-", 1)[0]
    out: list[Sentence] = []
    for template in templates(language):
        out.extend(_said(template, pass_name))
    return out


def _said(template: Template, pass_name: str) -> Iterator[Sentence]:
    slots = {s for s, _ in SLOT.findall(template.say)}
    entity_slot = next((s for s in slots if s in SELECTORS), None)
    if entity_slot is not None:
        choices: list[tuple[Thing | None, str | None]] = [
            (t, None) for t in _rotate(_of(entity_slot), template.number)
        ]
    elif "area" in slots or "floor" in slots:
        place = "area" if "area" in slots else "floor"
        ids = list(ROOMS) if place == "area" else list(FLOORS)
        fitting = [p for p in ids if _expected(template.expect, None, place, p)]
        choices = [(None, p) for p in _rotate(fitting, template.number)]
    else:
        choices = [(None, None)]
    where = "floor" if "floor" in slots else "area"
    for thing, chosen in choices:
        place_id = chosen
        if thing is not None and thing.area_id is not None:
            place_id = thing.area_id if where == "area" else thing.floor_id
        entities = _expected(template.expect, thing, where, place_id)
        if template.expect != "none" and not entities:
            continue
        accepted = _alternatives(template.expect, where, place_id)
        yield Sentence(
            _fill(template.say, thing, place_id, pass_name),
            template.family,
            template.tool,
            entities,
            template.params,
            template.split,
            template.say,
            accepted,
        )


def _of(selector: str) -> list[Thing]:
    return [t for t in things() if SELECTORS[selector](t)]


def _rotate[T](items: list[T], number: int) -> list[T]:
    if not items:
        return []
    start = (number * 7) % len(items)
    picked = [items[(start + k) % len(items)] for k in range(min(PER_TEMPLATE, len(items)))]
    return list(dict.fromkeys(picked))


def _expected(expect: str, thing: Thing | None, where: str, place_id: str | None) -> frozenset[str]:
    if expect == "none":
        return frozenset()
    if expect == "named":
        return frozenset({thing.entity_id}) if thing is not None else frozenset()
    found: set[str] = set()
    for part in expect.split(" + "):
        for alternative in part.split(" | "):
            ids = _select(alternative.strip(), where, place_id)
            if ids:
                found |= ids
                break
    return frozenset(found)


def _alternatives(expect: str, where: str, place_id: str | None) -> tuple[frozenset[str], ...]:
    """Each way an `a | b` expectation can be met: one non-empty alternative per part."""
    if expect in {"none", "named"} or " | " not in expect:
        return ()
    options: list[list[set[str]]] = []
    for part in expect.split(" + "):
        found = [ids for a in part.split(" | ") if (ids := _select(a.strip(), where, place_id))]
        options.append(found or [set()])
    return tuple(frozenset().union(*choice) for choice in itertools.product(*options))


def _select(atom: str, where: str, place_id: str | None) -> set[str]:
    what, _, place = atom.partition("@")
    domain, _, classes = what.partition(":")
    wanted = set(classes.split(",")) if classes else None
    out = set()
    for t in things():
        if t.domain != domain or (wanted is not None and t.device_class not in wanted):
            continue
        if place == "area" and t.area_id != place_id:
            continue
        if place == "floor" and t.floor_id != place_id:
            continue
        out.add(t.entity_id)
    if place in {"area", "floor"} and place != where:
        raise ValueError(f"{atom}: the template's place is its {where}")
    return out


def _fill(say: str, thing: Thing | None, place_id: str | None, pass_name: str) -> str:
    def one(match: re.Match[str]) -> str:
        slot, particle = match.group(1), match.group(2)
        if slot == "area":
            assert place_id is not None
            word = area_name(place_id, pass_name)
        elif slot == "floor":
            assert place_id is not None
            word = floor_name(place_id, pass_name)
        else:
            assert thing is not None
            word = thing.name(pass_name)
        return word + (korean_particle(word, particle) if particle else "")

    return SLOT.sub(one, say)


PARTICLES: Mapping[str, tuple[str, str]] = {
    # the particle after a final consonant, after a vowel
    "을": ("을", "를"),
    "이": ("이", "가"),
    "은": ("은", "는"),
    "과": ("과", "와"),
    "으로": ("으로", "로"),
}


def korean_particle(word: str, particle: str) -> str:
    """The particle's form after `word`: by the final syllable's last consonant (a Latin
    letter or a digit read aloud counts as a vowel, as in "TV를"); `으로` is `로` after ㄹ."""
    first, second = PARTICLES[particle]
    last = word.rstrip()[-1:]
    if not ("가" <= last <= "힣"):
        return second
    final = (ord(last) - ord("가")) % 28
    if particle == "으로" and final == 8:  # ㄹ
        return "로"
    return first if final else second


def template_counts(language: str) -> dict[str, dict[str, int]]:
    """Templates per family and part."""
    counts: dict[str, dict[str, int]] = {}
    for t in templates(language):
        counts.setdefault(t.family, {DEV: 0, HELD_OUT: 0})[t.split] += 1
    return counts
