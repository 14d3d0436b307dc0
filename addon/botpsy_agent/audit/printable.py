"""Text from requests, made safe to print for people: the audit command, the log, refusals.

A request can carry any character in a field name, a topic or a text: a newline that starts
a forged "executed unlock" line, or an escape code that makes a terminal hide what follows
(issue 25, finding 10). Wherever such text is printed, control characters (C0, DEL, C1),
line and paragraph separators and the bidirectional controls that reorder what a screen
shows are written as escapes (`\\n`, `\\x1b`, `\\u2028`), so each record stays one honest
line. Backslashes are kept: a literal `\\n` typed by someone is harmless text.
"""

from __future__ import annotations

import logging
import re

UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]"
)
"""Characters never printed as they are."""
CONTINUATION = "\n    "
"""How a log message's own line breaks are printed: indented, so no continuation can pass
for a record of its own (records start with their time)."""


SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in SHORT_ESCAPES:
        return SHORT_ESCAPES[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def printable(text: str) -> str:
    """`text` with every unsafe character written as an escape: one line, as it was sent."""
    return UNSAFE.sub(_escape, text)


def printable_json(line: str) -> str:
    """A JSON document with the unsafe characters JSON itself leaves raw (DEL, C1, the
    separators and bidirectional controls with `ensure_ascii=False`) as `\\u` escapes: the
    same JSON, safe on a terminal. Such characters only occur inside strings."""
    return UNSAFE.sub(_json_escape, line)


def quoted_names(names: list[str], *, limit: int = 40) -> str:
    """Names from a request (unknown fields) for a refusal's message: printable and cut."""
    return ", ".join(
        printable(name if len(name) <= limit else name[:limit] + "…") for name in names
    )


class PrintableFormatter(logging.Formatter):
    """A log formatter whose messages (with their arguments) cannot break the line or
    send escape codes. Line breaks of the message become indented continuations; its
    traceback, written by the app's own code, is printed as it is."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        lines = record.message.split("\n")
        record.message = CONTINUATION.join(printable(line) for line in lines)
        return super().formatMessage(record)
