"""A TV and a speaker: on/off, play/pause, next/previous, volume, mute, source."""

from __future__ import annotations

from typing import Any

from homeassistant.components.media_player import (
    MediaPlayerEntity,
    MediaPlayerEntityFeature,
    MediaPlayerState,
)
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback

from .base import DemoDevice, remember
from .home import MEDIA_PLAYERS


class DemoPlayer(DemoDevice, MediaPlayerEntity):
    _attr_supported_features = (
        MediaPlayerEntityFeature.TURN_ON
        | MediaPlayerEntityFeature.TURN_OFF
        | MediaPlayerEntityFeature.PLAY
        | MediaPlayerEntityFeature.PAUSE
        | MediaPlayerEntityFeature.STOP
        | MediaPlayerEntityFeature.NEXT_TRACK
        | MediaPlayerEntityFeature.PREVIOUS_TRACK
        | MediaPlayerEntityFeature.VOLUME_SET
        | MediaPlayerEntityFeature.VOLUME_MUTE
        | MediaPlayerEntityFeature.SELECT_SOURCE
    )

    def __init__(self, entity_id: str, name: str, sources: list[str]) -> None:
        self._attr_source_list = sources
        super().__init__(entity_id, name)

    def reset(self) -> None:
        self._attr_state = MediaPlayerState.IDLE
        self._attr_volume_level = 0.3
        self._attr_is_volume_muted = False
        self._attr_source = (self._attr_source_list or [None])[0]
        self._attr_media_title = "Evening news"
        self._track = 1

    def _set(self, state: MediaPlayerState) -> None:
        self._attr_state = state
        self.async_write_ha_state()

    async def async_turn_on(self) -> None:
        self._set(MediaPlayerState.IDLE)

    async def async_turn_off(self) -> None:
        self._set(MediaPlayerState.OFF)

    async def async_media_play(self) -> None:
        self._set(MediaPlayerState.PLAYING)

    async def async_media_pause(self) -> None:
        self._set(MediaPlayerState.PAUSED)

    async def async_media_stop(self) -> None:
        self._set(MediaPlayerState.IDLE)

    async def async_media_next_track(self) -> None:
        self._track += 1
        self._attr_media_title = f"Track {self._track}"
        self.async_write_ha_state()

    async def async_media_previous_track(self) -> None:
        self._track = max(1, self._track - 1)
        self._attr_media_title = f"Track {self._track}"
        self.async_write_ha_state()

    async def async_set_volume_level(self, volume: float) -> None:
        self._attr_volume_level = volume
        self.async_write_ha_state()

    async def async_mute_volume(self, mute: bool) -> None:
        self._attr_is_volume_muted = mute
        self.async_write_ha_state()

    async def async_select_source(self, source: str) -> None:
        self._attr_source = source
        self.async_write_ha_state()


async def async_setup_platform(
    hass: HomeAssistant, config: Any, add: AddEntitiesCallback, discovery_info: Any = None
) -> None:
    players = [DemoPlayer(eid, name, src) for eid, (name, _, src) in MEDIA_PLAYERS.items()]
    add(remember(hass, players))
