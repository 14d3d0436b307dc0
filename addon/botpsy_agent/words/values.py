"""The values a request says, read by code: levels, the direction and size of a change,
colours and white temperatures, and which optional settings it speaks of at all.

A small model chooses well and writes values badly: "drop the temperature by a degree" came
back as 10 °C with the heating off, "a bit louder" as full volume, "warm white" as a colour,
"slightly dimmer" with a colour nobody asked for. `agent/narrowing.py` lets the model write
only what is read here, and leaves out the settings the words do not speak of.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
import re

from botpsy_agent.words import negation
from botpsy_agent.words.checks import SMALL_WORDS, Quantity, said_directions
from botpsy_agent.words.grounding import Request
from botpsy_agent.words.grounding_words import ALL_DAY
from botpsy_agent.words.numbers import NUMBER_WORDS, numbers_said
from botpsy_agent.words.phrasing import join_particles
from botpsy_agent.words.spoken_time import (
    EN_NUMBERS,
    SpokenTime,
    find_spoken_times,
    span_minutes,
)
from tool_schemas.devices import ColorName

STEP_QUANTITY: Mapping[str, Quantity] = {
    "brightness_step_pct": Quantity.BRIGHTNESS,
    "temperature_step": Quantity.TEMPERATURE,
    "volume_step_pct": Quantity.VOLUME,
    "percentage_step": Quantity.SPEED,
}
"""A relative field and the quantity it moves."""
DEFAULT_STEP: Mapping[Quantity, float] = {
    Quantity.BRIGHTNESS: 20,
    Quantity.TEMPERATURE: 1,
    Quantity.VOLUME: 10,
    Quantity.SPEED: 20,
}
"""The step of a change said without a size ("dimmer", "a bit louder"); the same steps the
checks correct a too-large change to (HA's own agent steps volume by 10 too)."""
LEVEL_FIELDS = frozenset(
    {"brightness_pct", "temperature", "volume_pct", "percentage", "position", "humidity", "value"}
)
"""Fields that set a level: only a number the request says."""

_INNER_MARK = re.compile(r"(\d)([.,:])(\d)")
_KEEP = {".": "\u2024", ",": "\u201a", ":": "\u2236"}
_RESTORE = str.maketrans({v: k for k, v in _KEEP.items()})
_DURATION = re.compile(
    r"\b(?:\d+|an?|half an?)\s*(?:minutes?|mins?|hours?|hrs?|seconds?|secs?|days?|weeks?|"
    r"분|시간|초|menit|jam|detik|hari)\b"
)
"""A length of time ("for 45 minutes") is no level."""
_DEGREES = re.compile(r"(?:[\w.,-]+\s*){1,2}?(?:degrees?\b|°|도|derajat\b)")
"""A number said in degrees, matched where it starts ("30 degrees", "twenty two degrees")."""
_BY = {"en": "by", "id": "sebesar"}
"""The word that makes a number a step ("down by 2") rather than a level ("down to 2")."""
_TO: Mapping[str, tuple[str, ...]] = {"en": ("to", "at"), "id": ("ke", "jadi", "menjadi")}
"""Words that make a number a level."""
FULL_WORDS: Mapping[str, tuple[str, ...]] = {
    "en": ("full", "maximum", "max", "all the way up"),
    "ko": ("최대",),
    "id": ("maksimal", "penuh"),
}
"""Words for the top of a level in %: 100."""

WHITE_WORDS: Mapping[str, Mapping[str, int]] = {
    "en": {
        "warm white": 2700,
        "warm light": 2700,
        "soft white": 2700,
        "cool white": 6500,
        "cold white": 6500,
        "daylight": 6500,
        "cool light": 6500,
    },
    "ko": {"따뜻한": 2700, "전구색": 2700, "주광색": 6500, "차가운": 6500},
    "id": {"putih hangat": 2700, "cahaya hangat": 2700, "putih dingin": 6500},
}
"""White temperatures said by their names (kelvin): a white, not a colour."""
COLOUR_WORDS: Mapping[str, Mapping[str, str]] = {
    "ko": {
        "빨간": "red",
        "빨강": "red",
        "주황": "orange",
        "노란": "yellow",
        "노랑": "yellow",
        "초록": "green",
        "파란": "blue",
        "파랑": "blue",
        "보라": "purple",
        "분홍": "pink",
        "흰": "white",
        "하얀": "white",
    },
    "id": {
        "merah": "red",
        "oranye": "orange",
        "jingga": "orange",
        "kuning": "yellow",
        "hijau": "green",
        "biru": "blue",
        "ungu": "purple",
        "merah muda": "pink",
        "putih": "white",
    },
}
"""Colour names in other languages; in English a colour is said by its own name."""
SETTING_WORDS: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "en": {
        "mute": ("mute", "unmute", "muted", "silence"),
        "source": ("source", "input", "hdmi"),
        "oscillating": ("oscillate", "oscillating", "oscillation", "swing", "rotate"),
        "direction": ("direction", "reverse", "forward"),
        "preset_mode": ("preset", "mode"),
        "mode": ("mode",),
        "rgb_color": ("rgb",),
        "device_class": (),
    },
    "ko": {
        "mute": ("음소거", "소리 꺼", "소리 켜"),
        "source": ("입력", "소스"),
        "oscillating": ("회전",),
        "direction": ("방향",),
        "preset_mode": ("모드",),
        "mode": ("모드",),
    },
    "id": {
        "mute": ("bisukan", "bisu", "senyap"),
        "source": ("sumber", "input"),
        "oscillating": ("berayun", "osilasi"),
        "direction": ("arah",),
        "preset_mode": ("mode",),
        "mode": ("mode",),
    },
}
"""Optional settings a request must speak of before the model may write them ("mute" for a
mute, "mode" for a preset): otherwise a call that turns the volume up may also mute."""


@dataclass(frozen=True)
class SaidValues:
    """What a request says of values, read once per request."""

    levels: tuple[float, ...] = ()
    """Numbers said as levels ("to 22 degrees", "50 %")."""
    steps: tuple[float, ...] = ()
    """Numbers said as sizes of a change ("by 10", "a degree", "two degrees")."""
    degrees: tuple[float, ...] = ()
    """Numbers said in degrees ("30 degrees", "21°"): a temperature, never a brightness or
    a volume (dev, reworded probe-model-warm: "set my room to 30 degrees" set its light to
    30 %)."""
    directions: Mapping[Quantity, int] = field(default_factory=dict)
    toward_level: bool = False
    """The way is said of a level: "dim it down to twenty percent" moves to 20 %, it asks
    for no step of its own (dev, reworded multi-bedroom-blue-dim: the 0.5B stepped down
    by 20 instead)."""
    small: bool = False
    """A small change said ("a bit", "slightly")."""
    full: bool = False
    whites: tuple[int, ...] = ()
    """White temperatures said by name (kelvin)."""
    colours: tuple[str, ...] = ()
    """Colour names said (other languages' names put into the schema's English)."""
    minutes: tuple[int, ...] = ()
    """Lengths of time said in minutes ("for an hour": 60)."""
    days: tuple[int, ...] = ()
    """Lengths said in whole days ("for three days": 3)."""
    all_day: bool = False
    """An all-day event said ("all day", "the whole day")."""
    clock: bool = False
    """A time of day said ("at 10", "in 20 minutes")."""
    starts: tuple[str, ...] = ()
    """The moments said with their day ("tomorrow at 11am": its local "YYYY-MM-DDTHH:MM"),
    each at its likeliest reading ("Thursday at 4" is 16:00: offered 04:00 too, the 0.5B
    chose it, dev recover-move-event): where an event may start."""
    dates: tuple[str, ...] = ()
    """The days said ("on Friday": "YYYY-MM-DD"): where an all-day event may start."""


def said_values(request: Request, now: datetime | None = None) -> SaidValues:
    """The values `request` says; `now` tells its times apart from its numbers (without
    it, every number counts)."""
    language = request.word_language
    text = request.text
    if now is not None:
        text = _without_times(text, now, request.language)
    # "21.5" and "9:30" are one number each, not two clauses
    spoken = find_spoken_times(request.text, now, request.language) if now is not None else ()
    kept = _INNER_MARK.sub(lambda m: m.group(1) + _KEEP[m.group(2)] + m.group(3), text)
    affirmed = negation.affirmed(kept, language).translate(_RESTORE)
    lowered = " ".join(affirmed.casefold().split())
    minutes, days = _durations(lowered, language)
    if (span := span_minutes(request.text, request.language)) and span not in minutes:
        minutes = (*minutes, span)  # "from ten to eleven": an hour
    text = " ".join(_DURATION.sub(" ", lowered).split())
    directions = said_directions(request.affirmed, request.language)
    levels: list[float] = []
    steps: list[float] = []
    degrees: list[float] = []
    toward = False
    for number, start in numbers_said(text, language):
        if _DEGREES.match(text, start):
            degrees.append(number)
        words = text[:start].split()
        before = words[-1] if words else None
        if before == _BY.get(language):
            steps.append(number)
            continue
        levels.append(number)
        if directions and before not in _TO.get(language, ()):
            steps.append(number)  # "turn it down 2 degrees": a size, or a level
        toward = toward or (
            bool(directions) and before in _TO.get(language, ()) and _moved(words[:-1], language)
        )
    # "another degree" too (reworded thermostat-followup~r7)
    if re.search(
        r"(?<!\w)(?:a|one|1|another)\s*(?:more\s+|less\s+)?(?:degree|°)", text
    ) or re.search(r"1\s*(?:도|derajat)", text):
        steps.append(1.0)
    return SaidValues(
        levels=tuple(dict.fromkeys(levels)),
        steps=tuple(dict.fromkeys(steps)),
        degrees=tuple(dict.fromkeys(degrees)),
        directions=directions,
        toward_level=toward,
        small=request.says_any(SMALL_WORDS.get(request.base_language, ())),
        full=request.says_any(FULL_WORDS.get(language, ())),
        whites=tuple(
            dict.fromkeys(k for w, k in WHITE_WORDS.get(language, {}).items() if request.says(w))
        ),
        colours=_colours(request),
        minutes=minutes,
        days=days,
        all_day=request.says_any(ALL_DAY.get(language, ())),
        clock=any(t.times or t.moment is not None for t in spoken),
        starts=_starts(spoken),
        dates=tuple(dict.fromkeys(day.isoformat() for t in spoken for day in t.days)),
    )


def _starts(spoken: tuple[SpokenTime, ...]) -> tuple[str, ...]:
    moments = [
        *(datetime.combine(day, t.times[0]) for t in spoken if t.times for day in t.days),
        *(t.moment.replace(tzinfo=None) for t in spoken if t.moment is not None),
    ]
    return tuple(dict.fromkeys(m.isoformat(timespec="minutes") for m in moments))


_COUNTS = "|".join(sorted(EN_NUMBERS, key=len, reverse=True))
_LENGTH = re.compile(
    rf"(?<![\w:])(\d+(?:[.,]\d+)?|half an?|an? half|an?|{_COUNTS})\s*"
    r"(minutes?|mins?|hours?|hrs?|days?|분|시간|일|menit|jam|hari)\b"
)
_LENGTH_WORDS: Mapping[str, float] = {
    **NUMBER_WORDS["en"],
    "a": 1,
    "an": 1,
    **dict.fromkeys(("half a", "half an", "a half", "an half"), 0.5),
}
_MINUTES_PER = {
    "minute": 1,
    "min": 1,
    "분": 1,
    "menit": 1,
    "hour": 60,
    "hr": 60,
    "시간": 60,
    "jam": 60,
}


def _durations(text: str, language: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Lengths of time said: in minutes, and in whole days. "jam 3" is three o'clock, not
    three hours: only a number before its unit counts."""
    minutes: list[int] = []
    days: list[int] = []
    for match in _LENGTH.finditer(text):
        amount, unit = match.group(1), match.group(2)
        number = _LENGTH_WORDS.get(amount)
        value = float(number) if number is not None else float(amount.replace(",", "."))
        base = unit.rstrip("s") if unit.isascii() else unit
        if base in {"day", "일", "hari"}:
            days.append(int(value))
        elif base in _MINUTES_PER:
            minutes.append(round(value * _MINUTES_PER[base]))
    if re.search(r"\bhalf an? hour\b|\bhalf-hour\b", text):
        minutes.append(30)
    if re.search(r"\ban? hour and a half\b", text):
        minutes.append(90)
    return tuple(dict.fromkeys(m for m in minutes if m > 0)), tuple(
        dict.fromkeys(d for d in days if d > 0)
    )


def says_setting(request: Request, name: str) -> bool:
    """Does the request speak of this optional setting (`SETTING_WORDS`)?"""
    words = SETTING_WORDS.get(request.word_language, SETTING_WORDS["en"]).get(name, ())
    return request.says_any(words)


def says_value(request: Request, value: str) -> bool:
    """Is this enum value said, as words ("fan_only" as "fan only")? Not as a way to move
    ("cool the living room down" asks for no cooling mode: dev, reworded cooler-living-room,
    the 0.5B set the heating to cool)."""
    words = value.replace("_", " ")
    if not request.says(words):
        return False
    joined = join_particles(request.affirmed.casefold(), request.base_language)
    moving = re.findall(rf"\b{re.escape(words)}\s+(?:it\s+|them\s+)?(?:up|down)\b", joined)
    said = re.findall(rf"\b{re.escape(words)}\b", joined)
    return len(said) > len(moving)


def _colours(request: Request) -> tuple[str, ...]:
    said = [c.value for c in ColorName if says_value(request, c.value)]
    if request.says("warm white"):
        said.append("warmwhite")
    for word, colour in COLOUR_WORDS.get(request.word_language, {}).items():
        if request.says(word):
            said.append(colour)
    return tuple(dict.fromkeys(said))


def _without_times(text: str, now: datetime, language: str) -> str:
    """The text with its times and days blanked: "at 9:30" holds no level."""
    for spoken in find_spoken_times(text, now, language):
        if spoken.times or spoken.moment is not None or spoken.days:
            text = text.replace(spoken.said, " ")
    return text


_MOVES: Mapping[str, frozenset[str]] = {
    "en": frozenset({"dim", "brighten", "down", "up", "lower", "raise", "reduce", "increase"}),
}
"""Words of a way that a level after "to" may finish ("dim it down to 20 %")."""
_CLAUSE_ENDS = frozenset({"and", "then", ","})
_NEAR = 5
"""How many words before "to" the way may be said."""


def _moved(words: list[str], language: str) -> bool:
    """Is a way said within the words just before a level's "to", in the same clause?"""
    for word in reversed(words[-_NEAR:]):
        if word in _CLAUSE_ENDS or word.endswith(","):
            return False
        if word in _MOVES.get(language, frozenset()):
            return True
    return False
