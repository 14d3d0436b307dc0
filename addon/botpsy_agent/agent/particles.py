"""Korean particles that follow the word before them: 을/를, 이/가, 은/는, 과/와, 으로/로.

A catalogue writes `{targets:을/를}`; the form is chosen by the final sound of the name put
there ("무드등을", "커튼을", "조명을", "TV를"), as a Korean speaker says it, instead of the
written-out "을(를)". The first form is the one after a final consonant (받침).
"""

from __future__ import annotations

HANGUL_FIRST, HANGUL_LAST = 0xAC00, 0xD7A3
RIEUL = 8
"""The final ㄹ: "으로/로" takes 로 after it (서울로), like after a vowel."""
DIGIT_FINALS = {"0": 21, "1": RIEUL, "2": 0, "3": 16, "4": 0, "5": 0, "6": 1, "7": RIEUL,
                "8": RIEUL, "9": 0}  # fmt: skip
"""The final consonant of each digit as read in Sino-Korean (영, 일, 이, 삼, …); 0 is none."""
LATIN_FINALS = {"l": RIEUL, "m": 16, "n": 4}
"""Latin names as Korean reads them: a final l, m or n is heard (호텔, 팀, 스캔); other
letters end in a vowel when said (도어, 라이트, 램프)."""


def final_consonant(word: str) -> int | None:
    """The final consonant index of the word's last sound (0: none); None if unknown."""
    for char in reversed(word.strip()):
        code = ord(char)
        if HANGUL_FIRST <= code <= HANGUL_LAST:
            return (code - HANGUL_FIRST) % 28
        if char in DIGIT_FINALS:
            return DIGIT_FINALS[char]
        if char.isascii() and char.isalpha():
            lower = char.lower()
            if lower == "g" and word.strip().lower().endswith("ng"):
                return 21  # ㅇ, as in "링"
            return LATIN_FINALS.get(lower, 0)
        if char.isalnum():
            return None
    return None


def attach(word: str, forms: str) -> str:
    """`word` with the particle of `forms` ("을/를") that fits its final sound."""
    after_consonant, _, after_vowel = forms.partition("/")
    final = final_consonant(word)
    if not word or final is None:
        return f"{word}{after_consonant}({after_vowel})"
    if after_consonant == "으로":
        return word + ("으로" if final not in (0, RIEUL) else "로")
    return word + (after_consonant if final else after_vowel)
