"""What the agent says for deterministic outcomes, per language, from translations/<lang>.yaml.

The model is English-first; confirmations, refusals and errors are phrased here so every
language gets short, correct answers. Placeholders are filled with names from the home (data,
never markup); a placeholder with no value stays visible rather than raising.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
import os
from pathlib import Path
import re
import string
from typing import Any

import yaml

from botpsy_agent.agent.particles import attach

DEFAULT_LANGUAGE = "en"


def translations_dir() -> Path:
    """The catalogues: `$BOTPSY_TRANSLATIONS`, else the repository's `translations/`."""
    if override := os.environ.get("BOTPSY_TRANSLATIONS"):
        return Path(override)
    return Path(__file__).resolve().parents[3] / "translations"


class _Keep(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


class _Formatter(string.Formatter):
    """`{name:을/를}` attaches the particle that fits the name (agent/particles.py)."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if "/" in format_spec:
            return attach(str(value), format_spec)
        return str(super().format_field(value, format_spec))


class Phrasebook:
    """All catalogues, loaded once."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or translations_dir()

    @cached_property
    def catalogs(self) -> Mapping[str, Mapping[str, Any]]:
        catalogs: dict[str, Mapping[str, Any]] = {}
        for path in sorted(self.directory.glob("*.yaml")):
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                catalogs[path.stem] = data
        if DEFAULT_LANGUAGE not in catalogs:
            raise FileNotFoundError(f"no {DEFAULT_LANGUAGE}.yaml in {self.directory}")
        return catalogs

    @property
    def languages(self) -> list[str]:
        return sorted(self.catalogs)

    def supports(self, language: str) -> bool:
        return _base(language) in self.catalogs

    def say(self, language: str, key: str, **values: Any) -> str:
        """The sentence at dotted `key`, in `language` (English where it has none)."""
        template = self._lookup(_base(language), key) or self._lookup(DEFAULT_LANGUAGE, key)
        if template is None:
            return key
        return _FORMATTER.vformat(str(template), (), _Keep(values))

    def has(self, language: str, key: str) -> bool:
        """Whether `key` has a sentence in `language` or in English."""
        return (
            self._lookup(_base(language), key) or self._lookup(DEFAULT_LANGUAGE, key)
        ) is not None

    def catalog_keys(self, language: str, key: str) -> list[str]:
        """The keys under dotted `key`, in the catalogue's order (English where the language
        has none there)."""
        node = self._lookup(_base(language), key) or self._lookup(DEFAULT_LANGUAGE, key)
        return [str(k) for k in node] if isinstance(node, Mapping) else []

    def join(self, language: str, items: list[str]) -> str:
        """ "a, b and c" in the language's own word for "and"."""
        if len(items) <= 1:
            return "".join(items)
        word = self.say(language, "words.and")
        return f"{', '.join(items[:-1])} {word} {items[-1]}"

    def join_or(self, language: str, items: list[str]) -> str:
        """ "a, b or c" in the language's own word for "or"."""
        if len(items) <= 1:
            return "".join(items)
        word = self.say(language, "words.or")
        return f"{', '.join(items[:-1])} {word} {items[-1]}"

    def is_affirmative(self, language: str, text: str, restating: str = "") -> bool:
        """A yes; with `restating` (the tool asked about), the words that say that tool's
        action again count as fillers: "yes please, delete it" to a deletion (reworded
        calendar-delete~r7, followup-cancel-it~r7: refused as new requests). Said alone,
        they are no yes ("cancel it" may mean no)."""
        also = self._lookup(_base(language), f"words.restating.{restating}") if restating else ()
        return self._matches(language, "affirmative", text, also or ())

    def is_negative(self, language: str, text: str) -> bool:
        return self._matches(language, "negative", text)

    def _matches(self, language: str, kind: str, text: str, also: Sequence[str] = ()) -> bool:
        """Only a bare answer counts: "okay, and turn off the light" is a new request, not a
        yes (issue 18: it unlocked a door). An answer may come in parts ("yes, go ahead",
        "actually no, don't"): every word belongs to a phrase of its kind or to a filler
        (`words.answer_fillers`: "please"), and one phrase at least is of its kind, so a
        "no, do it" is neither. Case and punctuation do not matter."""
        base = _base(language)
        phrases = [tuple(p.casefold().split()) for p in self._lookup(base, f"words.{kind}") or []]
        fillers = [
            tuple(f.casefold().split())
            for f in [*(self._lookup(base, "words.answer_fillers") or []), *also]
        ]
        said = tuple(re.sub(r"[^\w\s']", " ", text.casefold()).split())
        return _said_in_parts(said, [p for p in phrases if p], [f for f in fillers if f])

    def _lookup(self, language: str, key: str) -> Any:
        node: Any = self.catalogs.get(language)
        for part in key.split("."):
            if not isinstance(node, Mapping) or part not in node:
                return None
            node = node[part]
        return node


_FORMATTER = _Formatter()


def _said_in_parts(
    words: tuple[str, ...], phrases: list[tuple[str, ...]], fillers: list[tuple[str, ...]]
) -> bool:
    """Whether `words` are phrases and fillers one after the other, a phrase among them."""
    reached: dict[int, bool] = {0: False}  # position -> a phrase was among the parts before it
    for start in range(len(words)):
        if start not in reached:
            continue
        for part, is_phrase in [*((p, True) for p in phrases), *((f, False) for f in fillers)]:
            end = start + len(part)
            if words[start:end] == part:
                reached[end] = reached.get(end, False) or reached[start] or is_phrase
    return reached.get(len(words), False)


def _base(language: str) -> str:
    return language.replace("_", "-").split("-", 1)[0].lower()
