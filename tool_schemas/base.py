"""The base of every tool: a frozen pydantic model whose docstring is its description.

A tool declares what it may touch (`access`, `domains`) and how it becomes HA actions
(`to_actions`). Field descriptions are written for a 0.8B model: short and concrete.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Annotated, ClassVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from tool_schemas.actions import HaAction, TargetState

ENTITY_ID_PATTERN = r"^[a-z0-9_]+\.[a-z0-9_]+$"
REGISTRY_ID_PATTERN = r"^[A-Za-z0-9_\-]{1,64}$"

EntityId = Annotated[str, StringConstraints(pattern=ENTITY_ID_PATTERN, max_length=255)]
RegistryId = Annotated[str, StringConstraints(pattern=REGISTRY_ID_PATTERN)]
DomainName = Annotated[str, StringConstraints(pattern=r"^[a-z_]{2,40}$")]
ShortText = Annotated[str, StringConstraints(min_length=1, max_length=200, strip_whitespace=True)]
LongText = Annotated[str, StringConstraints(min_length=1, max_length=1000, strip_whitespace=True)]


ANY_DOMAIN = frozenset({"*"})
"""`domains` of read tools that may look at anything the principal may read."""


@dataclass(frozen=True, slots=True)
class MappingContext:
    """What a mapping may need besides its targets: the home's local time and units."""

    now: datetime
    """Timezone-aware, in the home's timezone."""
    temperature_unit: str = "°C"
    """HA's temperature unit ("°C" or "°F"): temperatures in calls and states are in it."""


def given(**values: object) -> dict[str, object]:
    """The optional values that were given (None left out), in order: for a call's data."""
    return {key: value for key, value in values.items() if value is not None}


class Access(StrEnum):
    """What a tool does to its targets, for the permission check."""

    READ = "read"
    CONTROL = "control"
    NONE = "none"  # conversation moves: no target at all


class Tool(BaseModel):
    """Base of all tools. Subclasses set the class variables and `to_actions`."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)

    name: ClassVar[str]
    access: ClassVar[Access]
    domains: ClassVar[frozenset[str]] = frozenset()
    """Entity domains this tool may act on; empty for tools without targets."""
    shapes: ClassVar[tuple[str, ...]] = ()
    """The argument combinations that validate, for the model's grammar (empty: required
    fields plus any optional ones). Comma-separated items: `f` required, `f?` optional,
    `a|b` exactly one of, `a|b?` at most one of, `f=x|y` required with only these values.
    Target fields (entity_id, area_id, …) are implied and not listed."""

    def target_fields(self) -> TargetSpec | None:
        """The target this call names, or None for tools that take none."""
        return None

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        """The HA actions for this call on the resolved targets (all within `domains`)."""
        raise NotImplementedError

    @classmethod
    def acts_on(cls, domain: str) -> bool:
        """May this tool act on an entity of `domain` ("*": any)?"""
        return "*" in cls.domains or domain in cls.domains

    @classmethod
    def purpose(cls) -> str:
        """What the tool does, for the model: its docstring on one line."""
        return " ".join((cls.__doc__ or "").split())


class TargetSpec(BaseModel):
    """A target as HA names it: entities, areas, floors, devices, labels."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entity_id: list[EntityId] | None = None
    area_id: list[RegistryId] | None = None
    floor_id: list[RegistryId] | None = None
    device_id: list[RegistryId] | None = None
    label_id: list[RegistryId] | None = None
    domain: list[str] | None = None
    """Narrows the entities found through areas, floors, devices and labels; alone, it means
    every entity of those domains the principal may use."""
    device_class: list[str] | None = None

    def is_empty(self) -> bool:
        named = (self.entity_id, self.area_id, self.floor_id, self.device_id, self.label_id)
        return not any(named) and not self.domain


class Targeted(Tool):
    """A tool that acts on entities named directly or through areas, floors, devices, labels."""

    entity_id: list[EntityId] | None = Field(
        default=None, max_length=50, description="Entity ids, e.g. light.kitchen."
    )
    area_id: list[RegistryId] | None = Field(
        default=None, max_length=20, description="Area ids: everything suitable in these areas."
    )
    floor_id: list[RegistryId] | None = Field(
        default=None, max_length=10, description="Floor ids: everything suitable on these floors."
    )
    device_id: list[RegistryId] | None = Field(
        default=None, max_length=20, description="Device ids."
    )
    label_id: list[RegistryId] | None = Field(default=None, max_length=10, description="Label ids.")
    domain: list[DomainName] | None = Field(
        default=None,
        max_length=10,
        description="Only these kinds, e.g. [light]; alone: all of them you may use.",
    )

    @model_validator(mode="after")
    def _needs_a_target(self) -> Targeted:
        if self.target_fields().is_empty():
            raise ValueError(
                "name at least one target: entity_id, area_id, floor_id, device_id, label_id "
                "or domain"
            )
        return self

    def target_fields(self) -> TargetSpec:
        return TargetSpec(
            entity_id=self.entity_id,
            area_id=self.area_id,
            floor_id=self.floor_id,
            device_id=self.device_id,
            label_id=self.label_id,
            domain=self.domain,
        )
