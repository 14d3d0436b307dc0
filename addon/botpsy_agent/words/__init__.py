"""The user's words, read: the fast path (HA's own sentence templates through hassil, and a
strict fuzzy fallback) turning common commands into typed calls, grounding (was an action
asked for?) and its vocabulary, negation, spoken times in en/ko/id, and the checks on a
model-proposed call. Pure: imports only `home`, no I/O beyond reading its sentence files."""

from botpsy_agent.words import grounding
from botpsy_agent.words.checks import CallProblem, Quantity, check_call, corrected_call
from botpsy_agent.words.clauses import said_parts
from botpsy_agent.words.content import (
    event_title,
    items_said,
    list_item,
    message_body,
    reminder_of,
    separate_items,
    settled_content,
    spans_of_content,
    with_request_content,
)
from botpsy_agent.words.grounding import PREPARED_BY, Request
from botpsy_agent.words.grounding_words import (
    ALL_DAY,
    ASKING_TO_KNOW,
    DOMAINS,
    EVERYONE,
    KINDS,
    REFERRING,
)
from botpsy_agent.words.recognizer import FastPath, Recognized, StateQuestion
from botpsy_agent.words.said_off import said_off_then_asked
from botpsy_agent.words.spoken_time import find_spoken_times, say_clock, say_when
from botpsy_agent.words.unknown_device import unknown_device, unknown_reading
from botpsy_agent.words.values import (
    DEFAULT_STEP,
    LEVEL_FIELDS,
    SETTING_WORDS,
    STEP_QUANTITY,
    SaidValues,
    said_values,
    says_setting,
    says_value,
)

__all__ = [
    "ALL_DAY",
    "ASKING_TO_KNOW",
    "DEFAULT_STEP",
    "DOMAINS",
    "EVERYONE",
    "KINDS",
    "LEVEL_FIELDS",
    "PREPARED_BY",
    "REFERRING",
    "SETTING_WORDS",
    "STEP_QUANTITY",
    "CallProblem",
    "FastPath",
    "Quantity",
    "Recognized",
    "Request",
    "SaidValues",
    "StateQuestion",
    "check_call",
    "corrected_call",
    "event_title",
    "find_spoken_times",
    "grounding",
    "items_said",
    "list_item",
    "message_body",
    "reminder_of",
    "said_off_then_asked",
    "said_parts",
    "said_values",
    "say_clock",
    "say_when",
    "says_setting",
    "says_value",
    "separate_items",
    "settled_content",
    "spans_of_content",
    "unknown_device",
    "unknown_reading",
    "with_request_content",
]
