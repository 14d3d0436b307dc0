"""The two moves the model always has: ask a question, or say that no tool fits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Literal

from pydantic import Field

from tool_schemas.actions import HaAction, TargetState
from tool_schemas.base import Access, EntityId, MappingContext, ShortText, Tool


class _Move(Tool):
    """A move in the conversation: nothing happens in the home."""

    access: ClassVar[Access] = Access.NONE

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        return ()


class AskUser(_Move):
    """Say what the request leaves open; the assistant asks the person about it."""

    name: ClassVar[str] = "ask_user"

    missing: Literal["target", "time", "content", "list", "value", "recipient"] = Field(
        description="What is unclear: which device, when, what to say, which list, "
        "how much, or who."
    )
    candidates: list[EntityId] | None = Field(
        default=None, min_length=1, max_length=4, description="The ids it could be."
    )
    """The question is the app's, from a template (issue 25, finding 5): the model's own
    text was spoken as the question, so planted text could make the app ask for a PIN."""


class NoToolFits(_Move):
    """Say that no available tool can do what was asked, with a short reason."""

    name: ClassVar[str] = "no_tool_fits"

    reason: ShortText = Field(description="Why, in a few words.")


CONVERSATION_TOOLS: tuple[type[Tool], ...] = (AskUser, NoToolFits)
