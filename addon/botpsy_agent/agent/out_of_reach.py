"""A request for an action only on devices its requester may not control: refused by the
policy before the model is asked, as the fast path refuses it.

The model is offered only what the requester may use, so it cannot choose the device asked
for, and chooses another: for Sam's "the office is cold, switch the heater on" (the heater
is outside Sam's rooms) both real models set the thermostat of Sam's own room, which the
app then asked about (dev probe-model-heater); for "please let me in, open the front door
for me" the 1.5B asked Sam who should get "Front door" (dev probe-model-unlock). When every
device the request names, for every kind of action it names, is one the policy denies, the
answer is that denial, and the model is not asked at all.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from botpsy_agent.home import Home
from botpsy_agent.policy import Deny, DenyReason, Policy, Principal, control_denial
from botpsy_agent.words import grounding, said_parts
from tool_schemas.base import Access
from tool_schemas.catalog import TOOLS

CONTROLS = tuple(name for name, tool in TOOLS.items() if tool.access is Access.CONTROL)


@dataclass(frozen=True)
class OutOfReach:
    """The denied action the request asks for: which kind, on what, and why not."""

    tool: str
    entity_id: str
    denial: Deny


def out_of_reach(
    words: grounding.Request, home: Home, policy: Policy, principal: Principal, now: datetime
) -> OutOfReach | None:
    """The denial to say, when each device the request names may not be controlled by the
    requester in any way the request names, and no part of the request asks for anything
    else; None when the request names no action, no device (a place or a kind only: the
    model's to choose within the requester's rights), or something the requester may do."""
    if words.is_question:
        return None
    kinds = grounding.asked_kinds(words, CONTROLS)
    if kinds is None:
        return None
    named = grounding.named_entities(words, home)
    denied: list[OutOfReach] = []
    for entity_id in _said_exactly(named, words, home):
        entity = home.entities[entity_id]
        for kind in sorted(kinds, key=lambda k: (k == "toggle", k)):  # "switch on": turn_on
            if not TOOLS[kind].acts_on(entity.domain):
                continue
            denial = control_denial(policy, principal, entity, kind, now)
            if denial is None:
                return None  # something named may be done: the model chooses
            if denial.reason is not DenyReason.NOT_EXPOSED:  # hidden: never told of
                denied.append(OutOfReach(kind, entity_id, denial))
    if not denied:
        return None
    areas = (home.areas.get(home.entities[e].area_id or "") for e in named)
    places = frozenset(area.name for area in areas if area is not None)
    reach = _Reach(home, policy, principal, now)
    for part in said_parts(words.text, words.language):
        if not reach.only_about(replace(words, text=part), kinds, named, places):
            return None  # "turn on the office light and my light": the model's, in part
    return denied[0]


def _said_exactly(entity_ids: frozenset[str], words: grounding.Request, home: Home) -> list[str]:
    """The devices whose whole name is said, where any is ("the front door" is the lock
    called so, not also the front gate); every one named otherwise."""

    def said(entity_id: str) -> bool:
        entity = home.entities[entity_id]
        return any(words.says_exactly(n) for n in (entity.name, *entity.aliases))

    exactly = sorted(e for e in entity_ids if said(e))
    return exactly or sorted(entity_ids)


@dataclass(frozen=True)
class _Reach:
    home: Home
    policy: Policy
    principal: Principal
    now: datetime

    def only_about(
        self,
        part: grounding.Request,
        asked: frozenset[str],
        named: frozenset[str],
        places: frozenset[str],
    ) -> bool:
        """Does this part of the request ask nothing beyond the named devices (none of
        which the requester may control): no action, only them by name or by their places
        ("the office is cold"), or no word of a device the requester may act on in the ways
        asked ("switch the heater on"; but "my fan" may be the requester's own)? A part that
        names no kind of action is asked the whole request's kinds."""
        kinds = grounding.asked_kinds(part, CONTROLS) or asked  # "… and my fan": switch it on
        if said := grounding.named_entities(part, self.home):
            return said <= named
        if said_places := grounding.places_said(part, self.home):
            return set(said_places) <= places
        return not any(part.says(word) for word in self._words_of_reachable(kinds))

    def _words_of_reachable(self, kinds: frozenset[str]) -> set[str]:
        """The words of the names of the devices the requester may act on in these ways."""
        words: set[str] = set()
        for entity in self.home.entities.values():
            fits = [k for k in kinds if TOOLS[k].acts_on(entity.domain)]
            if any(
                control_denial(self.policy, self.principal, entity, k, self.now) is None
                for k in fits
            ):
                words.update(entity.name.casefold().split())
        return words - grounding.STOPWORDS
