"""Messaging tools: messages to people, notifications, and to-do (shopping) lists."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, ClassVar

from pydantic import Field

from tool_schemas.actions import HaAction, ServiceCall, TargetState
from tool_schemas.base import (
    Access,
    EntityId,
    LongText,
    MappingContext,
    ShortText,
    TargetSpec,
    Tool,
    given,
)
from tool_schemas.calendar import Day

RecipientId = Annotated[EntityId, Field(pattern=r"^notify\.[a-z0-9_]+$")]
TodoListId = Annotated[EntityId, Field(pattern=r"^todo\.[a-z0-9_]+$")]


class SendMessage(Tool):
    """Send a text message to a person's phone or another notify target."""

    name: ClassVar[str] = "send_message"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"notify"})

    recipient: RecipientId = Field(description="The notify target, e.g. notify.mobile_app_anna.")
    message: LongText = Field(description="The text to send.")
    title: ShortText | None = Field(default=None, description="Optional title.")

    def target_fields(self) -> TargetSpec:
        return TargetSpec(entity_id=[self.recipient])

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        actions: list[HaAction] = []
        for target in targets:
            data = {"message": self.message, **given(title=self.title)}
            if target.is_service:
                # A legacy notify service (mobile_app): the service is the recipient.
                service = target.entity_id.split(".", 1)[1]
                actions.append(ServiceCall("notify", service, (), data, idempotent=False))
            else:
                actions.append(
                    ServiceCall(
                        "notify", "send_message", (target.entity_id,), data, idempotent=False
                    )
                )
        return tuple(actions)


class CreateNotification(Tool):
    """Show a notification in Home Assistant's sidebar for everyone at home."""

    name: ClassVar[str] = "create_notification"
    access: ClassVar[Access] = Access.CONTROL

    message: LongText = Field(description="The text.")
    title: ShortText | None = Field(default=None, description="Optional title.")

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        data = {"message": self.message, **given(title=self.title)}
        return (ServiceCall("persistent_notification", "create", (), data, idempotent=False),)


class _TodoTool(Tool):
    domains: ClassVar[frozenset[str]] = frozenset({"todo"})

    list_id: TodoListId = Field(description="The to-do or shopping list.")

    def target_fields(self) -> TargetSpec:
        return TargetSpec(entity_id=[self.list_id])


class AddTodoItem(_TodoTool):
    """Add an item to a to-do or shopping list."""

    name: ClassVar[str] = "add_todo_item"
    access: ClassVar[Access] = Access.CONTROL

    item: ShortText = Field(description="The item, e.g. milk.")
    due_date: Day | None = Field(default=None, description="Optional due date.")
    description: LongText | None = Field(default=None, description="Optional details.")

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        due_date = self.due_date.isoformat() if self.due_date else None
        data = {"item": self.item, **given(due_date=due_date, description=self.description)}
        return (ServiceCall("todo", "add_item", (self.list_id,), data, idempotent=False),)


class CompleteTodoItem(_TodoTool):
    """Mark an item of a to-do or shopping list as done."""

    name: ClassVar[str] = "complete_todo_item"
    access: ClassVar[Access] = Access.CONTROL

    item: ShortText = Field(description="The item as listed.")

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        data = {"item": self.item, "status": "completed"}
        return (ServiceCall("todo", "update_item", (self.list_id,), data),)


class RemoveTodoItem(_TodoTool):
    """Remove an item from a to-do or shopping list."""

    name: ClassVar[str] = "remove_todo_item"
    access: ClassVar[Access] = Access.CONTROL

    item: ShortText = Field(description="The item as listed.")

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        return (ServiceCall("todo", "remove_item", (self.list_id,), {"item": [self.item]}),)


class ListTodoItems(_TodoTool):
    """List the open items of a to-do or shopping list."""

    name: ClassVar[str] = "list_todo_items"
    access: ClassVar[Access] = Access.READ

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        data = {"status": ["needs_action"]}
        return (ServiceCall("todo", "get_items", (self.list_id,), data, return_response=True),)


MESSAGING_TOOLS: tuple[type[Tool], ...] = (
    SendMessage,
    CreateNotification,
    AddTodoItem,
    CompleteTodoItem,
    RemoveTodoItem,
    ListTodoItems,
)
