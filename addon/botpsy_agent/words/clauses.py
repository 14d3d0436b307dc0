"""A request's parts: "switch on the coffee machine and tell Anna coffee is on its way" is
said as two. Small models act on the first part of such a request and then answer in words
(dev multi-coffee-and-message, multi-blinds-and-message, multi-study-evening), though each
part alone is a request they carry out well; the agent then asks again about the part that
is left (`agent/core.py`).

The cut is generous (every "and", comma, colon and "then"): a part is only ever used when
it names what no step has done yet, and every call still answers to the whole request's
grounding and checks. Korean joins commands inside the verb ("닫고 나서"): not cut."""

from __future__ import annotations

from collections.abc import Mapping
import re

_JOINS: Mapping[str, re.Pattern[str]] = {
    "en": re.compile(
        r"\s*(?:[,;:](?=\s)\s*(?:and\s+)?(?:then\b)?|\s+and\s+(?:then\b)?|\s+then\b)\s*", re.I
    ),
    "id": re.compile(
        r"\s*(?:[,;:](?=\s)\s*(?:dan\s+)?(?:(?:lalu|kemudian)\b)?|\s+dan\s+(?:(?:lalu|kemudian)\b)?"
        r"|\s+(?:lalu|kemudian)\b)\s*",
        re.I,
    ),
}


def said_parts(text: str, language: str) -> tuple[str, ...]:
    """The request's parts in the order said, without their joining words; the whole text
    alone when the language has no joins here or nothing joins."""
    joins = _JOINS.get(language.split("-", maxsplit=1)[0].lower())
    if joins is None:
        return (text.strip(),)
    cut = tuple(p.strip(" ,.;:!?") for p in joins.split(text))
    return tuple(p for p in cut if p) or (text.strip(),)
