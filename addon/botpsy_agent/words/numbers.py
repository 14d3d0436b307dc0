"""Numbers as a request says them: in digits ("21.5", "70") or in words ("twenty-two"),
with where each starts. Shared by the values a request sets (`values.py`) and the checks on
what the model proposed (`checks.py`), so both read "dim it down to twenty percent" alike."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
import re

from botpsy_agent.words.spoken_time import EN_NUMBERS

_NUMBER = re.compile(r"(?<![\d.:,])(\d{1,4}(?:[.,]\d{1,2})?)(?![\d:]|[.,]\d)")
_EN_ONES = (  # noqa: SIM905 - twenty words read better on two lines than on twenty
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
_EN_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()  # noqa: SIM905


def _en_number_words() -> dict[str, int]:
    """One to a hundred in words: "twenty-two" and "twenty two" too (dev, reworded
    followup-same-kids-room: "twenty-two degrees" was read as no number at all)."""
    words = {word: n for n, word in enumerate(_EN_ONES) if n}
    for k, tens in enumerate(_EN_TENS):
        value = 20 + 10 * k
        words[tens] = value
        for n in range(1, 10):
            words[f"{tens}-{_EN_ONES[n]}"] = words[f"{tens} {_EN_ONES[n]}"] = value + n
    return {**words, **EN_NUMBERS, "hundred": 100, "a hundred": 100, "one hundred": 100}


NUMBER_WORDS: Mapping[str, Mapping[str, int]] = {"en": _en_number_words()}
"""Numbers said in words (the plain counting words of each language)."""


@cache
def _word_numbers(language: str) -> re.Pattern[str]:
    """Numbers in words, the longest first: "twenty two" is 22, not 20 and 2."""
    words = sorted(NUMBER_WORDS.get(language, {}), key=len, reverse=True)
    return re.compile(rf"(?<![\w-])(?:{'|'.join(map(re.escape, words))})(?![\w-])")


def numbers_said(text: str, language: str) -> list[tuple[float, int]]:
    """Every number said, in digits or words, with where it starts."""
    found: list[tuple[int, float]] = [
        (m.start(), float(m.group(1).replace(",", "."))) for m in _NUMBER.finditer(text)
    ]
    words = NUMBER_WORDS.get(language, {})
    if words:
        found += [
            (m.start(), float(words[m.group(0)])) for m in _word_numbers(language).finditer(text)
        ]
    return [(number, start) for start, number in sorted(found)]
