"""What a wrapper entity controls: the members of a group or a scene, as HA's state says.

A scene, a group (`group.*`) and a light, switch or cover group carry their members in the
state attribute `entity_id`; those are followed, nested groups too. A script's targets are
not in its state (HA keeps them in its config), so a script controls what nobody can know
here: `known` is False and the policy asks before running it (issue 18, finding 9).
"""

from __future__ import annotations

from dataclasses import dataclass

from botpsy_agent.home.model import Entity, Home

UNKNOWN_TARGET_DOMAINS = frozenset({"script"})
MAX_MEMBERS = 200
"""Members followed per wrapper; a bigger one is treated as unknown."""


@dataclass(frozen=True, slots=True)
class Controlled:
    """What one targeted wrapper entity acts on."""

    wrapper: str
    members: tuple[Entity, ...] = ()
    known: bool = True
    """False: HA does not say what it acts on (a script, or too many members)."""


def controlled_by(home: Home, entity: Entity) -> Controlled | None:
    """What `entity` acts on besides itself, or None when it is no wrapper."""
    if entity.domain in UNKNOWN_TARGET_DOMAINS:
        return Controlled(entity.entity_id, known=False)
    if not _member_ids(home, entity.entity_id):
        return None
    seen: dict[str, Entity] = {}
    queue = list(_member_ids(home, entity.entity_id))
    while queue:
        member_id = queue.pop(0)
        if member_id == entity.entity_id or member_id in seen:
            continue
        if len(seen) >= MAX_MEMBERS:
            return Controlled(entity.entity_id, tuple(seen.values()), known=False)
        member = home.entities.get(member_id) or Entity(member_id, member_id, exposed=False)
        seen[member_id] = member
        if member.domain in UNKNOWN_TARGET_DOMAINS:
            return Controlled(entity.entity_id, tuple(seen.values()), known=False)
        queue.extend(_member_ids(home, member_id))
    return Controlled(entity.entity_id, tuple(seen.values()))


def _member_ids(home: Home, entity_id: str) -> tuple[str, ...]:
    members = home.state_of(entity_id).attributes.get("entity_id")
    if isinstance(members, str):
        members = [members]
    if not isinstance(members, list | tuple):
        return ()
    return tuple(m for m in members if isinstance(m, str) and "." in m)
