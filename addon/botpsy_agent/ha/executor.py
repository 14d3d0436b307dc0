"""Carries out the HA actions of an authorised, resolved tool call and reports each outcome.

Used by the agent::

    executor = Executor(client, index)
    execution = await executor.execute(ExecutionKey(principal, request_id), resolved)
    execution.status        # ActionStatus: done / failed / unknown
    execution.outcomes      # one ActionOutcome per HA action, in order
    execution.to_json()     # plain JSON, errors left out: the agent names them (HaError)
    await executor.close()

`execute` never raises for trouble with HA: errors are outcomes, each the `HaError` that
says what went wrong in HA's own words.

* `ServiceCall` → `call_service` (with `return_response` when the tool wants HA's answer);
  then the new states of the targets are collected from `state_changed` events that carry
  the call's context id, waiting at most `settle_s` for targets that have not changed yet
  and are not already as the call leaves them (`already_as_asked`: HA writes no state for
  a change that changes nothing, so there is no echo to wait for).
* `CalendarCommand` → the calendar WebSocket command; HA's answer is the outcome.
* `ReadStates` → the states (or names) from the entity index; nothing is sent.

Nothing is executed twice for one request: the same call under a repeated key returns the
first execution (the last `remember` ones are kept; one still running is awaited, not
repeated). Another call under the same key is another execution: a retry the model planned
differently never gets an earlier call's result as its own (issue 25, finding 7).
An action whose outcome is unknown (the connection dropped or HA did not answer in time
after it was sent) is reported as `unknown`, never retried, and the actions after it in the
same call are `skipped`.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from enum import StrEnum
import hashlib
import json
from typing import Any

from botpsy_agent.ha.client import HaClient
from botpsy_agent.ha.errors import HaError, NotRunHere
from botpsy_agent.ha.index import EntityIndex, StateChange
from botpsy_agent.home import EntityState, Home, ResolvedCall
from tool_schemas.actions import (
    AssistIntent,
    CalendarCommand,
    HaAction,
    ReadStates,
    ServiceCall,
    describe,
)


class ActionStatus(StrEnum):
    DONE = "done"
    FAILED = "failed"
    """HA refused it, or it was never sent (not connected)."""
    UNKNOWN = "unknown"
    """Sent, but no answer came: HA may or may not have done it."""
    SKIPPED = "skipped"
    """Not attempted, because an earlier action of the same call has an unknown outcome."""


@dataclass(frozen=True)
class ActionOutcome:
    """What became of one HA action."""

    action: HaAction
    status: ActionStatus
    states: tuple[EntityState, ...] = ()
    """The targets' states afterwards (service calls), or the states read (`ReadStates`)."""
    changed: tuple[EntityState, ...] = ()
    """New states HA reported as caused by this call (its context), targets or not."""
    response: Any = None
    """What HA answered: a service response, a calendar command's result, names read."""
    error: HaError | None = None
    """Why it failed or may not have happened (the agent says it in the answer's terms)."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"action": describe(self.action), "status": self.status.value}
        if self.states:
            data["states"] = [_state_json(s) for s in self.states]
        if self.changed:
            data["changed"] = [_state_json(s) for s in self.changed]
        if self.response is not None:
            data["response"] = self.response
        return data


@dataclass(frozen=True)
class ExecutionKey:
    """What makes an execution happen once: who asked, their request id, and the step.

    Request ids are chosen by clients (and published on the events topic), so an id alone
    names nobody's request: another principal reusing it must get its own execution, never
    the first one's result (issue 18, finding 4). The dispatcher keys its replies the same
    way, with `principal.key`.
    """

    principal: str
    request_id: str
    step: str = "0"


def call_digest(resolved: ResolvedCall) -> str:
    """What the call is, as a short stable digest: the tool, its arguments and the entities
    they resolved to. Taken from the call, not from its HA actions: those may be computed
    from state ("brighter"), which the first run of the call has changed."""
    what = {
        "tool": resolved.call.name,
        "arguments": resolved.call.model_dump(mode="json", exclude_none=True),
        "targets": list(resolved.entity_ids),
    }
    text = json.dumps(what, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Execution:
    """Every action of one request, in order."""

    request_id: str
    outcomes: tuple[ActionOutcome, ...]

    @property
    def status(self) -> ActionStatus:
        statuses = {o.status for o in self.outcomes}
        for status in (ActionStatus.UNKNOWN, ActionStatus.FAILED):
            if status in statuses:
                return status
        return ActionStatus.DONE

    @property
    def error(self) -> HaError | None:
        return next((o.error for o in self.outcomes if o.error is not None), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "request_id": self.request_id,
            "status": self.status.value,
            "actions": [o.to_json() for o in self.outcomes],
        }


class Executor:
    """Performs resolved tool calls on HA, once per request id."""

    def __init__(
        self,
        client: HaClient,
        index: EntityIndex,
        *,
        settle_s: float = 0.5,
        remember: int = 1000,
    ) -> None:
        self._client = client
        self._index = index
        self._settle_s = settle_s
        self._remember = remember
        self._runs: OrderedDict[tuple[ExecutionKey, str], asyncio.Task[Execution]] = OrderedDict()
        self._watches: set[_Watch] = set()
        self._remove_listener = index.add_state_listener(self._on_state_change)

    async def execute(self, key: ExecutionKey, resolved: ResolvedCall) -> Execution:
        """Perform the call's actions, or return what performing this same call under this
        `key` gave the first time. Cancelling the caller does not cancel the work."""
        slot = (key, call_digest(resolved))
        run = self._runs.get(slot)
        if run is None:
            request_id = f"{key.request_id}:{key.step}"
            run = asyncio.create_task(
                self._perform(request_id, resolved.actions), name=f"botpsy-execute-{request_id}"
            )
            self._runs[slot] = run
            self._forget_old()
        else:
            self._runs.move_to_end(slot)
        return await asyncio.shield(run)

    async def close(self) -> None:
        """Wait for the work in progress, then stop following state changes."""
        running = [run for run in self._runs.values() if not run.done()]
        if running:
            await asyncio.gather(*running, return_exceptions=True)
        self._remove_listener()

    def _forget_old(self) -> None:
        while len(self._runs) > self._remember:
            oldest = next(iter(self._runs.values()))
            if not oldest.done():
                return  # never forget a request that is still running
            self._runs.popitem(last=False)

    # --- performing ---------------------------------------------------------------------------

    async def _perform(self, request_id: str, actions: Sequence[HaAction]) -> Execution:
        outcomes: list[ActionOutcome] = []
        for action in actions:
            if outcomes and outcomes[-1].status in {ActionStatus.UNKNOWN, ActionStatus.SKIPPED}:
                outcomes.append(ActionOutcome(action, ActionStatus.SKIPPED))
                continue
            outcomes.append(await self._perform_one(action))
        return Execution(request_id, tuple(outcomes))

    async def _perform_one(self, action: HaAction) -> ActionOutcome:
        match action:
            case ReadStates():
                return _read(self._index.home, action)
            case CalendarCommand():
                try:
                    response = await self._client.call(action.as_message())
                except HaError as err:
                    return _failure(action, err)
                return ActionOutcome(action, ActionStatus.DONE, response=response)
            case ServiceCall():
                return await self._call_service(action)
            case AssistIntent():
                # HA's intent handlers run these for the voice device (the integration).
                return ActionOutcome(action, ActionStatus.FAILED, error=NotRunHere(action.intent))

    async def _call_service(self, action: ServiceCall) -> ActionOutcome:
        watch = _Watch()
        self._watches.add(watch)
        try:
            try:
                result = await self._client.call(action.as_message())
            except HaError as err:
                return _failure(action, err)
            context_id = ((result or {}).get("context") or {}).get("id")
            home = self._index.home
            awaited = [
                e for e in action.entity_ids if not already_as_asked(action, home.state_of(e))
            ]
            await watch.settle(context_id, awaited, self._settle_s)
        finally:
            self._watches.discard(watch)
        response = (result or {}).get("response") if action.return_response else None
        if (action.domain, action.service) == ("calendar", "get_events") and response:
            response = await self._with_event_uids(action, response)
        home = self._index.home
        return ActionOutcome(
            action,
            ActionStatus.DONE,
            states=tuple(home.state_of(entity_id) for entity_id in action.entity_ids),
            changed=watch.changed(),
            response=response,
        )

    async def _with_event_uids(self, action: ServiceCall, response: Any) -> Any:
        """`calendar.get_events` answers without event uids, which update_event and
        delete_event need; HA's calendar subscription sends the same events with them."""
        enriched = dict(response)
        for entity_id, listed in response.items():
            try:
                pushed = await self._client.first_event(
                    {
                        "type": "calendar/event/subscribe",
                        "entity_id": entity_id,
                        "start": action.data["start_date_time"],
                        "end": action.data["end_date_time"],
                    }
                )
            except HaError:
                continue  # the events without uids are still the answer
            uids = {
                (e.get("summary"), e.get("start"), e.get("end")): e
                for e in pushed.get("events") or ()
            }
            events = []
            for event in (listed or {}).get("events") or ():
                full = uids.get((event.get("summary"), event.get("start"), event.get("end")))
                extra = {k: full[k] for k in ("uid", "recurrence_id") if full and full.get(k)}
                events.append({**event, **extra})
            enriched[entity_id] = {**listed, "events": events}
        return enriched

    def _on_state_change(self, change: StateChange) -> None:
        for watch in self._watches:
            watch.record(change)


class _Watch:
    """State changes seen while one service call is in flight: HA reports the call's context
    id only with its answer, and states it changed may arrive before that answer."""

    def __init__(self) -> None:
        self._seen: list[StateChange] = []
        self._context_id: str | None = None
        self._waiting_for: set[str] = set()
        self._all_changed = asyncio.Event()

    def record(self, change: StateChange) -> None:
        self._seen.append(change)
        if self._context_id is not None and change.context_id == self._context_id:
            self._waiting_for.discard(change.entity_id)
            if not self._waiting_for:
                self._all_changed.set()

    async def settle(self, context_id: str | None, targets: Iterable[str], within_s: float) -> None:
        """Wait (at most `within_s`) until every target has changed under `context_id`."""
        if context_id is None:
            return
        self._context_id = context_id
        changed = {c.entity_id for c in self._seen if c.context_id == context_id}
        self._waiting_for = set(targets) - changed
        if self._waiting_for:
            with suppress(TimeoutError):
                async with asyncio.timeout(within_s):
                    await self._all_changed.wait()

    def changed(self) -> tuple[EntityState, ...]:
        latest = {
            c.entity_id: c.new_state
            for c in self._seen
            if c.context_id == self._context_id and self._context_id is not None
        }
        return tuple(state for _, state in sorted(latest.items()) if state is not None)


ON_OFF_DOMAINS = frozenset(
    {"light", "switch", "fan", "input_boolean", "humidifier", "siren", "automation"}
)
"""Domains whose `turn_on` leaves the state `on` and `turn_off` leaves it `off`."""
ASKED_STATES: Mapping[tuple[str, str], frozenset[str] | None] = {
    ("lock", "lock"): frozenset({"locked"}),
    ("lock", "unlock"): frozenset({"unlocked"}),
    ("cover", "open_cover"): frozenset({"open"}),
    ("cover", "close_cover"): frozenset({"closed"}),
    ("cover", "set_cover_position"): None,
    ("media_player", "turn_on"): frozenset({"on", "idle", "playing", "paused", "buffering"}),
    ("media_player", "turn_off"): frozenset({"off"}),
    ("media_player", "media_pause"): frozenset({"paused"}),
    ("media_player", "media_play"): frozenset({"playing"}),
    ("media_player", "volume_set"): None,
    ("media_player", "volume_mute"): None,
    ("vacuum", "start"): frozenset({"cleaning"}),
    ("vacuum", "return_to_base"): frozenset({"returning", "docked"}),
    ("climate", "set_temperature"): None,
    ("fan", "set_percentage"): None,
}
"""The states a service leaves its target in; None: the state stays, only attributes change."""
COLOURS: Mapping[str, tuple[int, int, int]] = {
    # the CSS colours of tool_schemas' ColorName, as HA turns a colour name into RGB
    "white": (255, 255, 255),
    "red": (255, 0, 0),
    "orange": (255, 165, 0),
    "yellow": (255, 255, 0),
    "green": (0, 128, 0),
    "lime": (0, 255, 0),
    "teal": (0, 128, 128),
    "cyan": (0, 255, 255),
    "blue": (0, 0, 255),
    "navy": (0, 0, 128),
    "purple": (128, 0, 128),
    "violet": (238, 130, 238),
    "magenta": (255, 0, 255),
    "pink": (255, 192, 203),
    "gold": (255, 215, 0),
    "lavender": (230, 230, 250),
    "coral": (255, 127, 80),
    "turquoise": (64, 224, 208),
}


def _colour_is(name: Any, attributes: Mapping[str, Any]) -> bool:
    """The light shows this colour already (a light that keeps hue and saturation only
    shows another RGB for the darker ones: then it is not, and the call is waited for)."""
    wanted, shown = COLOURS.get(str(name)), attributes.get("rgb_color")
    if wanted is None or not isinstance(shown, list | tuple) or len(shown) != len(wanted):
        return False
    return all(abs(int(a) - b) <= 3 for a, b in zip(shown, wanted, strict=True))


ASKED_ATTRIBUTES: Mapping[str, Callable[[Any, Mapping[str, Any]], bool]] = {
    "color_name": _colour_is,
    # service data -> whether the target's attributes already say it
    "brightness_pct": lambda pct, a: a.get("brightness") == round(float(pct) * 255 / 100),
    "brightness": lambda value, a: a.get("brightness") == value,
    "temperature": lambda value, a: a.get("temperature") == value,
    "position": lambda value, a: a.get("current_position") == value,
    "percentage": lambda value, a: a.get("percentage") == value,
    "volume_level": lambda value, a: (
        isinstance(a.get("volume_level"), int | float) and abs(a["volume_level"] - value) < 1e-3
    ),
    "is_volume_muted": lambda value, a: a.get("is_volume_muted") is value,
}


def already_as_asked(action: ServiceCall, state: EntityState) -> bool:
    """Whether the target already is as the call leaves it: a light on and turned on, a lock
    locked and locked, a thermostat at 21 set to 21. Unknown services and data are not."""
    domain = state.entity_id.split(".", 1)[0]
    if action.service in {"turn_on", "turn_off"} and domain in ON_OFF_DOMAINS:
        asked: frozenset[str] | None = frozenset({action.service.removeprefix("turn_")})
    elif (domain, action.service) in ASKED_STATES:
        asked = ASKED_STATES[domain, action.service]
    else:
        return False
    if asked is not None and state.state not in asked:
        return False
    return all(
        key in ASKED_ATTRIBUTES and ASKED_ATTRIBUTES[key](value, state.attributes)
        for key, value in action.data.items()
    )


def _read(home: Home, action: ReadStates) -> ActionOutcome:
    if action.names_only:
        names = [
            {
                "entity_id": entity_id,
                "name": home.entities[entity_id].name,
                "area": home.entities[entity_id].area_id,
            }
            for entity_id in action.entity_ids
            if entity_id in home.entities
        ]
        return ActionOutcome(action, ActionStatus.DONE, response=names)
    states = tuple(home.state_of(entity_id) for entity_id in action.entity_ids)
    return ActionOutcome(action, ActionStatus.DONE, states=states)


def _failure(action: HaAction, err: HaError) -> ActionOutcome:
    status = ActionStatus.UNKNOWN if err.outcome_unknown else ActionStatus.FAILED
    return ActionOutcome(action, status, error=err)


def _state_json(state: EntityState) -> dict[str, Any]:
    return {
        "entity_id": state.entity_id,
        "state": state.state,
        "attributes": dict(state.attributes),
    }
