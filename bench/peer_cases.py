"""Which evaluation cases HA's own stack can pass by its design, and which of its changes the
user asked for. Pure: bench/peer.py and its report use these on the cases and outcomes.

HA's stack (the default agent's intents, then the `llama_cpp` conversation agent) answers
with `done`, with a question (`needs_clarification`, as the peer client reads a question
without an action) or with an error (read as `refused`). It has no confirmation step, no
per-user permissions and no way to decline but in words. A case that can only pass through
one of those is not a comparison of the two stacks' skill but of their design, so the peer
report headlines the other cases and counts these apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
import re

from tests.eval.cases import ACTION, CALENDAR, SHOPPING_LIST, Case

CONFIRMATION = "confirmation"
PER_USER_PERMISSION = "per_user_permission"
NO_REFUSAL_STATUS = "no_refusal_status"
REASONS: Mapping[str, str] = {
    CONFIRMATION: "a turn expects a confirmation question (HA acts at once: it has no "
    "confirmation step)",
    PER_USER_PERMISSION: "the child's request must be refused by the household's per-user "
    "policy (HA has none: the child's token may do what HA exposes to Assist)",
    NO_REFUSAL_STATUS: "the case passes only by declining (a refusal or a question instead of "
    "an answer); HA has no refusal status and its default prompt tells its LLM to answer "
    "questions about the world",
}
"""Why a case is out of HA's reach, by reason, in the report's words."""
POLICY_REASONS = frozenset({CONFIRMATION, PER_USER_PERMISSION})
"""The reasons under which the request itself is a command BotPsy's policy holds back."""
_DECLINES = frozenset({"refused", "needs_confirmation", "needs_clarification"})


def ha_cannot_pass(case: Case) -> str | None:
    """Why HA's stack cannot pass `case` by its design (a key of `REASONS`), or None.

    * `confirmation`: a turn expects exactly `needs_confirmation`. HA executes a lock, the
      garage door or a deletion at once; the confirming or declining turn after it has nothing
      to answer.
    * `per_user_permission`: the child speaks and a turn accepts only a decline (no `done`).
      Those refusals come from demo/policy.yaml (rooms, domains, limits, the calendar);
      HA's stack has no such policy, so the child's explicit command is carried out.
    * `no_refusal_status`: any other speaker, a case in which nothing may change and a turn
      accepts only a decline (refused, or a question back). HA declines in plain text, which
      is `done`, and its LLM is told to answer general questions.

    Every other case (an action, a fact, a change-free answer `done`) is one HA's stack is
    built to pass; its `path` and `speech` expectations, BotPsy's own, are dropped for it
    (bench/peer.py `as_peer_case`)."""
    if any(turn.statuses == {"needs_confirmation"} for turn in case.turns):
        return CONFIRMATION
    declines_only = any(turn.statuses and turn.statuses <= _DECLINES for turn in case.turns)
    if not declines_only:
        return None
    if case.user == "child":
        return PER_USER_PERMISSION
    if case.kind != ACTION:
        return NO_REFUSAL_STATUS
    return None


_CHANGED = re.compile(r"^HA changed (\S+), which the case does not name$")
"""tests/eval/scoring.py's wording of a false action on an entity."""


def changed_target(false_action: str) -> str | None:
    """The entity a false action of the scorer changed: the entity itself, the calendar or
    the shopping list; None for a message (a recipient nobody names in a command)."""
    found = _CHANGED.match(false_action)
    if found:
        return found.group(1)
    if false_action.startswith("HA's calendar "):
        return CALENDAR
    if false_action.startswith("HA's list "):
        return SHOPPING_LIST
    return None


def _words(text: str) -> set[str]:
    """Folded words, a plural `s` dropped: "Counter lights" ~ "the counter light"."""
    found = re.findall(r"[\w']+", text.casefold())
    return {w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in found}


def _object_words(entity_id: str) -> str:
    return entity_id.split(".", 1)[-1].replace("_", " ")


def named_in(text: str, names: Iterable[str]) -> bool:
    """Whether the request's words hold every word of one of the entity's names
    ("Office heater" in "the office is cold, switch the heater on")."""
    said = _words(text)
    return any(_words(name) and _words(name) <= said for name in names)


def split_false_actions(
    case: Case, false_actions: list[str], names: Mapping[str, Iterable[str]]
) -> tuple[list[str], list[str]]:
    """(nobody asked for these, the user asked for these but BotPsy's policy holds them).

    In a confirmation or per-user permission case the request is a command: "unlock the
    front door", said by the child. A stack that carries it out changes the entity the case
    does not name as a change (nothing may change), which the scorer calls a false action.
    Done because the user said so, it is a permission matter, not a change nobody asked for:
    it moves to the second list when the request names that entity (`names`: entity id ->
    its name and aliases). Any other false action stays one."""
    if ha_cannot_pass(case) not in POLICY_REASONS:
        return list(false_actions), []
    said = " ".join(turn.say for turn in case.turns)
    unasked, asked = [], []
    for action in false_actions:
        target = changed_target(action)
        own_names = [*names.get(target, ()), _object_words(target)] if target else []
        if target and named_in(said, own_names):
            asked.append(f"{target}, as asked ({said!r})")
        else:
            unasked.append(action)
    return unasked, asked
