"""The user's words, read: the fast path (HA's own sentence templates through hassil, and a
strict fuzzy fallback) turning common commands into typed calls, grounding (was an action
asked for?) and its vocabulary, negation, spoken times in en/ko/id, and the checks on a
model-proposed call. Pure: imports only `home`, no I/O beyond reading its sentence files."""

from botpsy_agent.words import grounding
from botpsy_agent.words.checks import CallProblem, check_call, corrected_call
from botpsy_agent.words.content import with_request_content
from botpsy_agent.words.grounding import PREPARED_BY
from botpsy_agent.words.recognizer import FastPath, StateQuestion
from botpsy_agent.words.spoken_time import say_clock, say_when

__all__ = [
    "PREPARED_BY",
    "CallProblem",
    "FastPath",
    "StateQuestion",
    "check_call",
    "corrected_call",
    "grounding",
    "say_clock",
    "say_when",
    "with_request_content",
]
