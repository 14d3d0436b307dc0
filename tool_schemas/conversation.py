"""The two moves the model always has: ask a question, or say that no tool fits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import Field

from tool_schemas.actions import HaAction, TargetState
from tool_schemas.base import Access, MappingContext, ShortText, Tool


class _Move(Tool):
    """A move in the conversation: nothing happens in the home."""

    access: ClassVar[Access] = Access.NONE

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        return ()


class AskUser(_Move):
    """Ask the person one short question when the request is unclear."""

    name: ClassVar[str] = "ask_user"

    question: ShortText = Field(description="The question, e.g. Which light do you mean?")


class NoToolFits(_Move):
    """Say that no available tool can do what was asked, with a short reason."""

    name: ClassVar[str] = "no_tool_fits"

    reason: ShortText = Field(description="Why, in a few words.")


CONVERSATION_TOOLS: tuple[type[Tool], ...] = (AskUser, NoToolFits)
