"""Read-only tools: what state things are in, and what exists where."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import Field

from tool_schemas.actions import HaAction, ReadStates, TargetState
from tool_schemas.base import ANY_DOMAIN, Access, MappingContext, Targeted, TargetSpec


class _Query(Targeted):
    device_class: list[str] | None = Field(
        default=None, max_length=10, description="Only these device classes, e.g. [temperature]."
    )

    def target_fields(self) -> TargetSpec:
        return (
            super()
            .target_fields()
            .model_copy(update={"domain": self.domain, "device_class": self.device_class})
        )


class GetState(_Query):
    """Read the current state of entities, or of everything in areas or on floors."""

    name: ClassVar[str] = "get_state"
    access: ClassVar[Access] = Access.READ
    domains: ClassVar[frozenset[str]] = ANY_DOMAIN

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        return (ReadStates(tuple(sorted(t.entity_id for t in targets))),)


class ListEntities(_Query):
    """List the things that exist in areas or on floors (names only, no states)."""

    name: ClassVar[str] = "list_entities"
    access: ClassVar[Access] = Access.READ
    domains: ClassVar[frozenset[str]] = ANY_DOMAIN

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        return (ReadStates(tuple(sorted(t.entity_id for t in targets)), names_only=True),)


QUERY_TOOLS: tuple[type[Targeted], ...] = (GetState, ListEntities)
