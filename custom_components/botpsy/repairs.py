"""Fix flows of the integration's repair issues (HA lets only admins run them).

An unknown pairing (`issues.UNKNOWN_PAIRING`) is fixed by acknowledging it: the admin says
the secret is theirs (another Home Assistant, a pairing they made). One they do not know is
removed with `botpsy.revoke_pairing` instead, which the issue's text names.

A pipeline that handles commands locally first (`local_handling.LOCAL_HANDLING`) is fixed
by turning that setting off, in one step; the issue says when keeping it is fine (ignore).
"""

from __future__ import annotations

from typing import Any

from homeassistant.components.repairs import RepairsFlow, RepairsFlowResult
from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir

from .const import DOMAIN
from .issues import async_acknowledge_pairing
from .local_handling import LOCAL_HANDLING, async_turn_off_local_handling


class AcknowledgePairingFlow(RepairsFlow):
    """Confirm that a secret the app holds is known."""

    def __init__(self, entry_id: str, pairing_id: str) -> None:
        self._entry_id = entry_id
        self._pairing_id = pairing_id

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> RepairsFlowResult:
        # HA starts a fix flow with the issue's id as its input: the question comes next.
        return await self.async_step_confirm()

    async def async_step_confirm(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        entry = self.hass.config_entries.async_get_entry(self._entry_id)
        if entry is None:
            return self.async_abort(reason="entry_gone")
        if user_input is None:
            return self.async_show_form(
                step_id="confirm", description_placeholders={"pairing_id": self._pairing_id}
            )
        async_acknowledge_pairing(self.hass, entry, self._pairing_id)
        return self.async_create_entry(data={})


class TurnOffLocalHandlingFlow(RepairsFlow):
    """Turn a pipeline's "prefer handling commands locally" off, so BotPsy hears them all."""

    def __init__(self, issue_id: str, pipeline_id: str, pipeline_name: str) -> None:
        self._issue_id = issue_id
        self._pipeline_id = pipeline_id
        self._pipeline_name = pipeline_name

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> RepairsFlowResult:
        return await self.async_step_turn_off()

    async def async_step_turn_off(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        if user_input is None:
            return self.async_show_form(
                step_id="turn_off", description_placeholders={"pipeline": self._pipeline_name}
            )
        if not await async_turn_off_local_handling(self.hass, self._pipeline_id):
            ir.async_delete_issue(self.hass, DOMAIN, self._issue_id)
            return self.async_abort(reason="pipeline_gone")
        ir.async_delete_issue(self.hass, DOMAIN, self._issue_id)
        return self.async_create_entry(data={})


async def async_create_fix_flow(
    hass: HomeAssistant, issue_id: str, data: dict[str, str | int | float | None] | None
) -> RepairsFlow:
    assert data is not None
    if data.get("kind") == LOCAL_HANDLING:
        return TurnOffLocalHandlingFlow(
            issue_id, str(data["pipeline_id"]), str(data["pipeline_name"])
        )
    return AcknowledgePairingFlow(str(data["entry_id"]), str(data["pairing_id"]))
