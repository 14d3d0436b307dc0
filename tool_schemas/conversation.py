"""The two moves the model always has: ask a question, or say that no tool fits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import Field

from tool_schemas.actions import HaAction, TargetState
from tool_schemas.base import Access, MappingContext, ShortText, Tool


class AskUser(Tool):
    """Ask the person one short question when the request is unclear."""

    name: ClassVar[str] = "ask_user"
    access: ClassVar[Access] = Access.NONE

    question: ShortText = Field(description="The question, e.g. Which light do you mean?")

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        return ()


class NoToolFits(Tool):
    """Say that no available tool can do what was asked, with a short reason."""

    name: ClassVar[str] = "no_tool_fits"
    access: ClassVar[Access] = Access.NONE

    reason: ShortText = Field(description="Why, in a few words.")

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        return ()


CONVERSATION_TOOLS: tuple[type[Tool], ...] = (AskUser, NoToolFits)
