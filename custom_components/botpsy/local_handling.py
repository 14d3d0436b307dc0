"""A repair issue for each Assist pipeline that lets HA's own agent answer before BotPsy.

With "Prefer handling commands locally" (`prefer_local_intents`, a per-pipeline setting HA
offers whenever the agent is not its own), HA's default agent carries out every command its
sentences match before BotPsy sees it: BotPsy's permissions, confirmations and audit log
never hear of it ("unlock the front door" from a child). HA announces no change of its
pipelines, so they are checked when the entry starts and every `CHECK_INTERVAL`; the issue
goes as soon as the setting is off (`repairs.TurnOffLocalHandlingFlow` turns it off) or the
pipeline uses another agent. An admin who wants it (nobody's rights are limited) ignores it.
"""

from __future__ import annotations

from datetime import timedelta

from homeassistant.components import assist_pipeline
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import entity_registry as er, issue_registry as ir
from homeassistant.helpers.event import async_track_time_interval

from .const import DOMAIN

LOCAL_HANDLING = "prefer_local_intents"
CHECK_INTERVAL = timedelta(minutes=1)


def issue_id(entry_id: str, pipeline_id: str) -> str:
    return f"{LOCAL_HANDLING}_{entry_id}_{pipeline_id}"


@callback
def pipelines_handled_locally(hass: HomeAssistant, entry: ConfigEntry) -> dict[str, str]:
    """Pipelines (id: name) whose agent is this entry's and that prefer local handling."""
    if assist_pipeline.DOMAIN not in hass.config.components:
        return {}
    agent = er.async_get(hass).async_get_entity_id("conversation", DOMAIN, entry.entry_id)
    agents = {entry.entry_id} | ({agent} if agent else set())
    return {
        pipeline.id: pipeline.name
        for pipeline in assist_pipeline.async_get_pipelines(hass)
        if pipeline.conversation_engine in agents and pipeline.prefer_local_intents
    }


class LocalHandlingIssues:
    """Keeps one fixable issue per pipeline that hands BotPsy's commands to HA first."""

    def __init__(self, hass: HomeAssistant, entry: ConfigEntry) -> None:
        self.hass = hass
        self._entry = entry
        self._raised: set[str] = set()

    @callback
    def start(self) -> None:
        self.check()
        self._entry.async_on_unload(
            async_track_time_interval(self.hass, self.check, CHECK_INTERVAL)
        )
        self._entry.async_on_unload(self.close)

    @callback
    def check(self, _now: object = None) -> None:
        found = pipelines_handled_locally(self.hass, self._entry)
        for gone in self._raised - found.keys():
            ir.async_delete_issue(self.hass, DOMAIN, issue_id(self._entry.entry_id, gone))
        for pipeline_id, name in found.items():
            ir.async_create_issue(
                self.hass,
                DOMAIN,
                issue_id(self._entry.entry_id, pipeline_id),
                is_fixable=True,
                is_persistent=False,
                severity=ir.IssueSeverity.WARNING,
                translation_key=LOCAL_HANDLING,
                translation_placeholders={"pipeline": name},
                data={
                    "kind": LOCAL_HANDLING,
                    "entry_id": self._entry.entry_id,
                    "pipeline_id": pipeline_id,
                    "pipeline_name": name,
                },
            )
        self._raised = set(found)

    @callback
    def close(self) -> None:
        for pipeline_id in self._raised:
            ir.async_delete_issue(self.hass, DOMAIN, issue_id(self._entry.entry_id, pipeline_id))
        self._raised.clear()


async def async_turn_off_local_handling(hass: HomeAssistant, pipeline_id: str) -> bool:
    """Turn the pipeline's "prefer handling commands locally" off; False when it is gone."""
    if assist_pipeline.DOMAIN not in hass.config.components:
        return False
    for pipeline in assist_pipeline.async_get_pipelines(hass):
        if pipeline.id == pipeline_id:
            await assist_pipeline.async_update_pipeline(hass, pipeline, prefer_local_intents=False)
            return True
    return False
