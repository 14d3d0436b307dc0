"""Make a fresh Home Assistant into the demo home, through HA's own APIs, as a person would:
onboarding (owner account), a child's account, floors and areas, where each device is,
what Assist may use, the MQTT broker, a calendar with events and a shopping list.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
import secrets
from typing import Any
from zoneinfo import ZoneInfo

import aiohttp

from botpsy_agent.ha.client import HaClient, HaEndpoint
from demo.paths import load_devices

devices = load_devices()

CLIENT_ID = "http://127.0.0.1/"
ADMIN_NAME, CHILD_NAME = "Alex", "Sam"


@dataclass(frozen=True)
class DemoAccounts:
    admin_id: str
    child_id: str
    token: str
    """A long-lived access token of the admin (for the app and the demo's checks)."""


class SetupError(RuntimeError):
    """HA refused a step of the set-up; the message names the step and HA's answer."""


@asynccontextmanager
async def ha_client(base_url: str, token: str, *, timeout_s: float = 15) -> AsyncIterator[HaClient]:
    """The app's own HA client, connected to HA's WebSocket API; stopped at the end."""
    client = HaClient(HaEndpoint.from_base_url(base_url, token))
    await client.start()
    try:
        await client.wait_connected(timeout_s)
        yield client
    finally:
        await client.stop()


async def post_json(session: aiohttp.ClientSession, url: str, **kwargs: Any) -> Any:
    """HA's answer to one POST, or a SetupError with its status and body."""
    async with session.post(url, **kwargs) as response:
        body = await response.json(content_type=None)
        if response.status >= 400:
            raise SetupError(f"POST {url.split('/api', 1)[-1]}: HTTP {response.status} {body}")
        return body


async def tokens_for_code(session: aiohttp.ClientSession, base_url: str, code: str) -> Any:
    """The tokens HA gives for an authorization code (onboarding's, or a login flow's)."""
    return await post_json(
        session,
        f"{base_url}/auth/token",
        data={"grant_type": "authorization_code", "code": code, "client_id": CLIENT_ID},
    )


async def onboard(base_url: str) -> tuple[str, str]:
    """Create the owner account and finish onboarding; returns (access token, owner id)."""
    password = secrets.token_urlsafe(16)
    async with aiohttp.ClientSession() as session:
        created = await post_json(
            session,
            f"{base_url}/api/onboarding/users",
            json={
                "client_id": CLIENT_ID,
                "name": ADMIN_NAME,
                "username": "alex",
                "password": password,
                "language": "en",
            },
        )
        tokens = await tokens_for_code(session, base_url, created["auth_code"])
        auth = {"Authorization": f"Bearer {tokens['access_token']}"}
        for step, body in (
            ("core_config", {}),
            ("analytics", {}),
            ("integration", {"client_id": CLIENT_ID, "redirect_uri": CLIENT_ID}),
        ):
            await post_json(session, f"{base_url}/api/onboarding/{step}", json=body, headers=auth)
    async with ha_client(base_url, tokens["access_token"]) as client:
        users = await client.call({"type": "config/auth/list"})
        owner = next(u["id"] for u in users if u.get("is_owner"))
    return tokens["access_token"], owner


async def confirm_http_settings(base_url: str, token: str) -> bool:
    """Confirm the `http:` settings HA took from configuration.yaml; True if one was pending.

    HA 2026.10 moves YAML http settings into its store as a *pending* config on first start
    and, unless an admin confirms it within five minutes (`http/config/promote`), reverts to
    its stable config and restarts: a demo or an evaluation would lose HA at minute five.
    """
    async with ha_client(base_url, token) as client:
        config = await client.call({"type": "http/config"})
        pending = config.get("pending")
        if pending is None:
            return False
        if pending.get("error") is not None:
            raise SetupError(f"HA refused the demo's http settings: {pending['error']}")
        await client.call({"type": "http/config/promote"})
        return True


async def set_up_home(
    base_url: str, access_token: str, owner_id: str, broker: tuple[str, int]
) -> DemoAccounts:
    """Everything after onboarding; returns the accounts the demo acts as."""
    async with ha_client(base_url, access_token) as client:
        call = client.call
        token = await call(
            {"type": "auth/long_lived_access_token", "client_name": "BotPsy demo", "lifespan": 3650}
        )
        child = await call(
            {
                "type": "config/auth/create",
                "name": CHILD_NAME,
                "group_ids": ["system-users"],
                "local_only": True,
            }
        )
        child_id = child["user"]["id"]
        await call(
            {
                "type": "config/auth_provider/homeassistant/create",
                "user_id": child_id,
                "username": "sam",
                "password": secrets.token_urlsafe(16),
            }
        )
        for floor_id, (name, level, aliases) in devices.FLOORS.items():
            made = await call(
                {
                    "type": "config/floor_registry/create",
                    "name": name,
                    "level": level,
                    "aliases": aliases,
                }
            )
            if made["floor_id"] != floor_id:
                raise SetupError(f"floor {name!r} became {made['floor_id']}, expected {floor_id}")
        # Onboarding already made a few rooms (kitchen, living room, bedroom): update those.
        existing = {a["area_id"] for a in await call({"type": "config/area_registry/list"})}
        for area_id, (name, floor_id, aliases) in devices.AREAS.items():
            area = {"name": name, "floor_id": floor_id, "aliases": aliases}
            if area_id in existing:
                await call({"type": "config/area_registry/update", "area_id": area_id, **area})
                continue
            made = await call({"type": "config/area_registry/create", **area})
            if made["area_id"] != area_id:
                raise SetupError(f"area {name!r} became {made['area_id']}, expected {area_id}")
        placed = {entity_id: area for entity_id, (_, area) in devices.placed_devices().items()}
        # demo_home adds its devices in the background while HA starts: with more of HA's
        # configuration to load first (the eval's house), they can come after onboarding.
        await _wait_for(client, list(placed))
        for entity_id, area_id in placed.items():
            update: dict[str, Any] = {
                "type": "config/entity_registry/update",
                "entity_id": entity_id,
                "area_id": area_id,
            }
            if entity_id in devices.ALIASES:
                update["aliases"] = devices.ALIASES[entity_id]
            await call(update)
        mqtt = {
            "broker": broker[0],
            "port": broker[1],
            "protocol": "5",
            "other_settings": {"set_client_cert": False, "set_ca_cert": "off", "transport": "tcp"},
        }
        # Onboarding adds HA's own "Shopping list": two lists of one name would make every
        # "add milk to the shopping list" ambiguous, for HA's agent and ours alike.
        await _remove_entries(client, base_url, access_token, "shopping_list")
        for handler, data in (
            ("mqtt", mqtt),
            ("local_calendar", {"calendar_name": "Family"}),
            ("local_todo", {"todo_list_name": "Shopping list"}),
        ):
            await _config_flow(base_url, access_token, handler, data)
        await _wait_for(client, ["calendar.family", "todo.shopping_list"])
        exposed = [
            *placed,
            "calendar.family",
            "todo.shopping_list",
            "scene.movie_night",
            "script.good_night",
        ]
        await call(
            {
                "type": "homeassistant/expose_entity",
                "assistants": ["conversation"],
                "entity_ids": exposed,
                "should_expose": True,
            }
        )
        await _add_calendar_and_list(client)
        return DemoAccounts(owner_id, child_id, token)


async def _remove_entries(client: HaClient, base_url: str, token: str, domain: str) -> None:
    """Remove every config entry of `domain` (HA's REST API; its WebSocket lists them)."""
    entries = await client.call({"type": "config_entries/get", "domain": domain})
    auth = {"Authorization": f"Bearer {token}"}
    async with aiohttp.ClientSession(headers=auth) as session:
        for entry in entries:
            url = f"{base_url}/api/config/config_entries/entry/{entry['entry_id']}"
            async with session.delete(url) as response:
                if response.status != 200:
                    raise SetupError(f"removing {domain}: HA answered {response.status}")


async def _config_flow(
    base_url: str, token: str, handler: str, data: dict[str, Any], *, steps: int = 4
) -> dict[str, Any]:
    """Run a config flow through HA's REST API, answering every form with `data` (minus
    what a form does not ask for); the created entry."""
    auth = {"Authorization": f"Bearer {token}"}
    async with aiohttp.ClientSession(headers=auth) as session:
        flow = await post_json(
            session,
            f"{base_url}/api/config/config_entries/flow",
            json={"handler": handler, "show_advanced_options": False},
        )
        for _ in range(steps):
            if flow.get("type") == "create_entry":
                return dict(flow["result"]) if isinstance(flow.get("result"), dict) else flow
            if flow.get("type") == "menu":
                answer: dict[str, Any] = {"next_step_id": flow["menu_options"][0]}
            elif flow.get("type") == "form" and not flow.get("errors"):
                asked = {field["name"] for field in flow.get("data_schema", [])}
                answer = {k: v for k, v in data.items() if k in asked}
            else:
                raise SetupError(f"setting up {handler}: HA answered {flow}")
            flow = await post_json(
                session,
                f"{base_url}/api/config/config_entries/flow/{flow['flow_id']}",
                json=answer,
            )
        raise SetupError(f"setting up {handler}: the flow did not finish ({flow})")


async def add_botpsy_integration(base_url: str, token: str, instance: str) -> str:
    """Add our integration as an admin would: pick the app instance (the flow pairs with
    it). Returns the entity id of its Assist agent."""
    data = {"instance": instance}
    entry = await _config_flow(base_url, token, "botpsy", data)
    return await conversation_agent_of(base_url, token, entry, "BotPsy")


async def conversation_agent_of(
    base_url: str, token: str, entry: dict[str, Any], integration: str
) -> str:
    """The conversation agent an integration's new config entry made (HA adds it soon after
    the flow ends)."""
    async with ha_client(base_url, token, timeout_s=30) as client:
        for _ in range(100):
            registry = await client.call({"type": "config/entity_registry/list"})
            agents = [
                e["entity_id"]
                for e in registry
                if e.get("config_entry_id") == entry.get("entry_id")
                and e["entity_id"].startswith("conversation.")
            ]
            if agents:
                return str(agents[0])
            await asyncio.sleep(0.1)
    raise SetupError(f"the {integration} integration was added but made no conversation agent")


async def _wait_for(client: HaClient, entity_ids: list[str]) -> None:
    for _ in range(100):
        states = await client.call({"type": "get_states"})
        if set(entity_ids) <= {s["entity_id"] for s in states}:
            return
        await asyncio.sleep(0.1)
    raise SetupError(f"HA did not create {', '.join(entity_ids)}")


async def _add_calendar_and_list(client: HaClient) -> None:
    config = await client.call({"type": "get_config"})
    today = datetime.now(ZoneInfo(config["time_zone"])).replace(minute=0, second=0, microsecond=0)
    events = (
        ("Dentist", today.replace(hour=15) + timedelta(days=1), 60),
        ("Piano lesson", today.replace(hour=17) + timedelta(days=2), 45),
        ("Family dinner", today.replace(hour=19), 120),
    )
    for summary, start, minutes in events:
        await client.call(
            {
                "type": "call_service",
                "domain": "calendar",
                "service": "create_event",
                "target": {"entity_id": "calendar.family"},
                "service_data": {
                    "summary": summary,
                    "start_date_time": start.isoformat(),
                    "end_date_time": (start + timedelta(minutes=minutes)).isoformat(),
                },
            }
        )
    for item in ("milk", "bread"):
        await client.call(
            {
                "type": "call_service",
                "domain": "todo",
                "service": "add_item",
                "target": {"entity_id": "todo.shopping_list"},
                "service_data": {"item": item},
            }
        )
