"""The demo home as the evaluation sees it, through HA's own API: read it, reset it before
each case, plant what a case's `setup` asks for (events, items, names).

The calendar is put back to the events the demo seeded, kept as days after the day the
evaluation started, so a run that passes midnight still starts every case from "the dentist
is tomorrow at 15:00".
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from botpsy_agent.ha.client import HaClient
from tests.eval.cases import (
    CALENDAR,
    SHOPPING_LIST,
    EventSetup,
    ItemSetup,
    Rename,
    ServiceSetup,
    SetupStep,
)
from tests.eval.heldout import RenamedHome
from tests.eval.layouts import Layout
from tests.eval.scoring import Event, HaCall, Item
from tests.eval.when import resolve

INITIAL_ITEMS = ("milk", "bread")
WINDOW_DAYS = (-7, 60)
"""The calendar window read and reset, around today."""


def _moment(value: str) -> date | datetime:
    return datetime.fromisoformat(value) if "T" in value else date.fromisoformat(value)


def _shift(value: date | datetime, days: int) -> date | datetime:
    return value + timedelta(days=days)


class Home:
    """Reads and resets the demo home through HA's API."""

    def __init__(
        self,
        client: HaClient,
        *,
        names_seen: Callable[[str, str], bool],
        area_seen: Callable[[str, str], bool] = lambda _area, _name: True,
    ) -> None:
        """`names_seen(entity_id, name)`, `area_seen(area_id, name)`: whether the app
        already knows that name (a rename reaches the app through HA's registry events)."""
        self.client = client
        self._names_seen = names_seen
        self._area_seen = area_seen
        self._calls: list[HaCall] = []
        self._turn = 0
        """The turn HA's calls are counted to; 0: between cases (resets, setups)."""
        self._renamed: dict[str, str] = {}
        """Entity id -> the name it had before a case renamed it."""
        self._seed: list[Event] = []
        self._seed_day = date.min
        self._restore: list[tuple[str, str, list[str]]] = []
        """Service calls that put the home's own entities back (a layout's distractors)."""
        self.zone = ZoneInfo("UTC")

    async def start(self) -> None:
        """Learn the time zone and the calendar as the demo seeded it."""
        config = await self.client.call({"type": "get_config"})
        self.zone = ZoneInfo(config["time_zone"])
        self._seed_day = self.now().date()
        self._seed = await self.events()
        await self.client.subscribe_events("call_service", self._heard)

    def _heard(self, event: Mapping[str, Any]) -> None:
        if self._turn:
            self._calls.append(HaCall.from_event(event.get("data") or {}, self._turn))

    def begin_turn(self, number: int) -> None:
        """Count the service calls HA receives from now on to turn `number` of a case."""
        if number == 1:
            self._calls = []
        self._turn = number

    async def end_turns(self) -> list[HaCall]:
        """The calls HA received during the case's turns. A ping first: HA answers it after
        every event it queued before, on this connection, so no call of the turn is missed."""
        await self.client.ping()
        self._turn = 0
        return list(self._calls)

    async def rename(self, home: RenamedHome, *, back: bool = False) -> None:
        """Give every device and room its new name in HA's registries (`back`: the old
        one), as a person would in the UI; return once the app uses them."""
        for area_id, (old, new) in home.areas.items():
            name = old if back else new
            await self.client.call(
                {"type": "config/area_registry/update", "area_id": area_id, "name": name}
            )
            await self._until(
                lambda a=area_id, n=name: self._area_seen(a, n), f"{area_id} {name!r}"
            )
        for entity_id, (old, new) in home.entities.items():
            await self._rename(entity_id, None if back else new, old if back else new)

    async def arrange(self, layout: Layout) -> None:
        """Make the demo home into `layout` through HA's registries, as a person would in
        the UI: its floors and rooms, each device's name and room, its own entities placed
        and exposed to Assist; return once the app uses the new names."""
        call = self.client.call
        floors = {f["floor_id"] for f in await call({"type": "config/floor_registry/list"})}
        for floor_id, (name, level) in layout.floors.items():
            kind = "update" if floor_id in floors else "create"
            made = await call(
                {
                    "type": f"config/floor_registry/{kind}",
                    **({"floor_id": floor_id} if kind == "update" else {}),
                    "name": name,
                    "level": level,
                }
            )
            if made["floor_id"] != floor_id:
                raise RuntimeError(f"floor {name!r} became {made['floor_id']}, not {floor_id}")
        areas = {a["area_id"] for a in await call({"type": "config/area_registry/list"})}
        for area_id, (name, floor_id) in layout.areas.items():
            kind = "update" if area_id in areas else "create"
            made = await call(
                {
                    "type": f"config/area_registry/{kind}",
                    **({"area_id": area_id} if kind == "update" else {}),
                    "name": name,
                    "floor_id": floor_id,
                }
            )
            if made["area_id"] != area_id:
                raise RuntimeError(f"area {name!r} became {made['area_id']}, not {area_id}")
        for entity_id, (name, area_id) in layout.devices.items():
            await call(
                {
                    "type": "config/entity_registry/update",
                    "entity_id": entity_id,
                    "name": name,
                    "area_id": area_id,
                }
            )
        for entity_id, (_name, area_id) in layout.extras.items():
            await call(
                {
                    "type": "config/entity_registry/update",
                    "entity_id": entity_id,
                    "area_id": area_id,
                }
            )
        for area_id in sorted(areas - set(layout.areas)):
            await call({"type": "config/area_registry/delete", "area_id": area_id})
        for floor_id in sorted(floors - set(layout.floors)):
            await call({"type": "config/floor_registry/delete", "floor_id": floor_id})
        if layout.extras:
            await call(
                {
                    "type": "homeassistant/expose_entity",
                    "assistants": ["conversation"],
                    "entity_ids": sorted(layout.extras),
                    "should_expose": True,
                }
            )
        for area_id, (name, _floor) in layout.areas.items():
            await self._until(
                lambda a=area_id, n=name: self._area_seen(a, n), f"{area_id} {name!r}"
            )
        for entity_id, (name, _area) in {**layout.devices, **layout.extras}.items():
            await self._until(
                lambda e=entity_id, n=name: self._names_seen(e, n), f"{entity_id} {name!r}"
            )
        for domain, service, entity_ids in [*layout.settle, *layout.restore]:
            await self._service(domain, service, {"entity_id": entity_ids})
        self._restore = layout.restore

    async def _until(self, condition: Callable[[], bool], what: str) -> None:
        for _ in range(200):  # the app re-reads names from HA's registry events
            if condition():
                return
            await asyncio.sleep(0.05)
        raise RuntimeError(f"the app did not see {what} within 10 s")

    def now(self) -> datetime:
        return datetime.now(self.zone)

    async def states(self) -> dict[str, dict[str, Any]]:
        return {s["entity_id"]: s for s in await self.client.call({"type": "get_states"})}

    async def events(self) -> list[Event]:
        today = datetime.combine(self.now().date(), datetime.min.time(), self.zone)
        pushed = await self.client.first_event(
            {
                "type": "calendar/event/subscribe",
                "entity_id": CALENDAR,
                "start": (today + timedelta(days=WINDOW_DAYS[0])).isoformat(),
                "end": (today + timedelta(days=WINDOW_DAYS[1])).isoformat(),
            }
        )
        return sorted(
            (
                Event(
                    str(e.get("summary") or ""),
                    _moment(e["start"]),
                    _moment(e["end"]),
                    str(e.get("description") or ""),
                    str(e.get("uid") or ""),
                )
                for e in pushed.get("events") or ()
            ),
            key=lambda e: (e.start.isoformat(), e.summary),
        )

    async def items(self) -> list[Item]:
        return [Item(str(i["summary"]), str(i["status"])) for i in await self._listed()]

    async def _listed(self) -> list[dict[str, Any]]:
        answer = await self.client.call(
            {
                "type": "call_service",
                "domain": "todo",
                "service": "get_items",
                "target": {"entity_id": SHOPPING_LIST},
                "service_data": {},
                "return_response": True,
            }
        )
        return list(answer["response"][SHOPPING_LIST]["items"])

    async def notifications(self) -> list[str]:
        shown = await self.client.call({"type": "persistent_notification/get"})
        return [f"{n.get('title') or ''} {n.get('message') or ''}".strip() for n in shown]

    async def reset(self) -> None:
        await self._service("demo_home", "reset", {})
        await self._service("input_boolean", "turn_off", {}, "input_boolean.guest_mode")
        await self._service("persistent_notification", "dismiss_all", {})
        for domain, service, entity_ids in self._restore:
            await self._service(domain, service, {"entity_id": entity_ids})
        for entity_id, name in sorted(self._renamed.items()):
            await self._rename(entity_id, name, name)  # the name it had, held-out names too
        self._renamed.clear()
        await self._reset_list()
        await self._reset_calendar()

    async def set_up(self, steps: Iterable[SetupStep]) -> None:
        for step in steps:
            if isinstance(step, EventSetup):
                await self.add_event(step)
            elif isinstance(step, ItemSetup):
                await self._service("todo", "add_item", {"item": step.summary}, SHOPPING_LIST)
            elif isinstance(step, ServiceSetup):
                domain, service = step.service.split(".")
                await self._service(domain, service, dict(step.data), step.entity_id)
            elif isinstance(step, Rename):
                states = await self.states()
                old = str(states[step.entity_id]["attributes"].get("friendly_name", ""))
                self._renamed.setdefault(step.entity_id, old)
                await self._rename(step.entity_id, step.name, step.name)

    async def add_event(self, step: EventSetup) -> None:
        start = resolve(step.start, self.now())
        await self._create_event(
            Event(
                step.summary,
                start,
                start + timedelta(minutes=step.minutes)
                if isinstance(start, datetime)
                else start + timedelta(days=1),
                step.description or "",
            )
        )

    async def _reset_list(self) -> None:
        listed = await self._listed()
        summaries = sorted(i["summary"] for i in listed)
        if summaries == sorted(INITIAL_ITEMS) and all(
            i["status"] == "needs_action" for i in listed
        ):
            return
        for item in listed:  # by uid: names may repeat
            await self._service("todo", "remove_item", {"item": item["uid"]}, SHOPPING_LIST)
        for name in INITIAL_ITEMS:
            await self._service("todo", "add_item", {"item": name}, SHOPPING_LIST)

    async def _reset_calendar(self) -> None:
        days = (self.now().date() - self._seed_day).days
        wanted = [
            Event(e.summary, _shift(e.start, days), _shift(e.end, days), e.description)
            for e in self._seed
        ]
        held = await self.events()
        if sorted(e.key for e in held) == sorted(e.key for e in wanted):
            return
        for event in held:
            await self.client.call(
                {"type": "calendar/event/delete", "entity_id": CALENDAR, "uid": event.uid}
            )
        for event in wanted:
            await self._create_event(event)

    async def _create_event(self, event: Event) -> None:
        if isinstance(event.start, datetime):
            assert isinstance(event.end, datetime)
            times = {
                "start_date_time": event.start.isoformat(),
                "end_date_time": event.end.isoformat(),
            }
        else:
            times = {"start_date": event.start.isoformat(), "end_date": event.end.isoformat()}
        extra = {"description": event.description} if event.description else {}
        await self._service(
            "calendar", "create_event", {"summary": event.summary, **times, **extra}, CALENDAR
        )

    async def _rename(self, entity_id: str, name: str | None, shown: str) -> None:
        """Set the registry name (None: back to the device's own, `shown`); wait until the
        app uses `shown`."""
        await self.client.call(
            {"type": "config/entity_registry/update", "entity_id": entity_id, "name": name}
        )
        await self._until(
            lambda: self._names_seen(entity_id, shown), f"{entity_id} renamed to {shown!r}"
        )

    async def _service(
        self, domain: str, service: str, data: dict[str, Any], entity: str | None = None
    ) -> None:
        message: dict[str, Any] = {
            "type": "call_service",
            "domain": domain,
            "service": service,
            "service_data": data,
        }
        if entity:
            message["target"] = {"entity_id": entity}
        await self.client.call(message)
