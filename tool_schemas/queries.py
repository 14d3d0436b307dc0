"""Read-only tools: what state things are in, and what exists where."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import Field

from tool_schemas.actions import HaAction, ReadStates, TargetState
from tool_schemas.base import ANY_DOMAIN, Access, MappingContext, Targeted, TargetSpec


class _Query(Targeted):
    """Reads the states (or only the names) of whatever the principal may read."""

    access: ClassVar[Access] = Access.READ
    domains: ClassVar[frozenset[str]] = ANY_DOMAIN
    names_only: ClassVar[bool] = False

    device_class: list[str] | None = Field(
        default=None, max_length=10, description="Only these device classes, e.g. [temperature]."
    )

    def target_fields(self) -> TargetSpec:
        return super().target_fields().model_copy(update={"device_class": self.device_class})

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        ids = tuple(sorted(t.entity_id for t in targets))
        return (ReadStates(ids, names_only=self.names_only),)


class GetState(_Query):
    """Read the current state of entities, or of everything in areas or on floors."""

    name: ClassVar[str] = "get_state"


class ListEntities(_Query):
    """List the things that exist in areas or on floors (names only, no states)."""

    name: ClassVar[str] = "list_entities"
    names_only: ClassVar[bool] = True


QUERY_TOOLS: tuple[type[Targeted], ...] = (GetState, ListEntities)
