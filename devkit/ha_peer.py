"""HA 2026.10's own local-LLM stack on the demo home, as a Home Assistant user would set it
up: the core `llama_cpp` conversation integration (HA's Assist LLM API over the exposed
entities) talking to a `llama-server`, behind an Assist pipeline that prefers handling
commands locally (the default agent's intents first).

`PeerClient` asks it the way the Assist dialog does (the `assist_pipeline/run` WebSocket
command, intent stage only, as the case's user) and gives the answer in the shape the
evaluation scores (tests/eval/scoring.py): status, path, speech and the executed actions,
read from the conversation's chat log (each tool HA's LLM called and its result) or, for a
locally handled command, from the intent response's targets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
import itertools
import secrets
from typing import Any

import aiohttp

from demo.home_setup import (
    CLIENT_ID,
    SetupError,
    _config_flow,
    conversation_agent_of,
    ha_client,
    post_json,
    tokens_for_code,
)

PIPELINE_NAME = "HA local-first with llama.cpp"
LOCAL_PATH = "ha_local"
"""The default agent's own intents answered (prefer handling commands locally)."""
LLM_PATH = "ha_llm"
"""The llama_cpp conversation agent answered (HA's Assist LLM API)."""
READ_TOOLS: Mapping[str, str] = {
    "GetLiveContext": "get_state",
    "HassGetState": "get_state",
    "GetDateTime": "get_state",
    "HassGetWeather": "get_state",
    "todo_get_items": "list_todo_items",
    "calendar_get_events": "list_events",
}
"""HA LLM tools that only read, as our read tools (not actions in the scoring)."""
CONTROL_TOOLS: Mapping[str, str] = {
    "HassTurnOn": "turn_on",
    "HassTurnOff": "turn_off",
    "HassToggle": "toggle",
    "HassLightSet": "set_light",
    "HassClimateSetTemperature": "set_climate",
    "HassSetPosition": "control_cover",
    "HassFanSetSpeed": "set_fan",
    "HassVacuumStart": "control_vacuum",
    "HassVacuumReturnToBase": "control_vacuum",
    "HassListAddItem": "add_todo_item",
    "HassListCompleteItem": "complete_todo_item",
    "HassBroadcast": "create_notification",
}
"""HA LLM tools that act, as the nearest of our control tools; any other tool HA offers
(media, timers, scripts) counts as a generic control action."""
GENERIC_CONTROL = "turn_on"


async def add_llama_cpp(base_url: str, token: str, server_url: str) -> str:
    """Add the core llama_cpp integration (its config flow, the defaults a user keeps:
    recommended options, the Assist API); returns its conversation agent's entity id."""
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{server_url}/v1/models") as response,
    ):
        models = [m["id"] for m in (await response.json())["data"]]
    entry = await _config_flow(
        base_url, token, "llama_cpp", {"base_url": f"{server_url}/v1", "chat_model": models[0]}
    )
    return await conversation_agent_of(base_url, token, entry, "llama_cpp")


async def add_local_first_pipeline(base_url: str, token: str, agent: str) -> str:
    """An Assist pipeline with `agent` and "prefer handling commands locally"; its id."""
    async with ha_client(base_url, token) as client:
        made = await client.call(
            {
                "type": "assist_pipeline/pipeline/create",
                "name": PIPELINE_NAME,
                "conversation_engine": agent,
                "conversation_language": "en",
                "language": "en",
                "prefer_local_intents": True,
                "stt_engine": None,
                "stt_language": None,
                "tts_engine": None,
                "tts_language": None,
                "tts_voice": None,
                "wake_word_entity": None,
                "wake_word_id": None,
            }
        )
    return str(made["id"])


async def token_for(base_url: str, admin_token: str, user_id: str, username: str) -> str:
    """A long-lived token of another (non-owner) user: the admin sets a fresh password, the
    user logs in through HA's login flow and makes the token itself."""
    password = secrets.token_urlsafe(16)
    async with ha_client(base_url, admin_token) as client:
        await client.call(
            {
                "type": "config/auth_provider/homeassistant/admin_change_password",
                "user_id": user_id,
                "password": password,
            }
        )
    async with aiohttp.ClientSession() as session:
        flow = await post_json(
            session,
            f"{base_url}/auth/login_flow",
            json={
                "client_id": CLIENT_ID,
                "handler": ["homeassistant", None],
                "redirect_uri": CLIENT_ID,
            },
        )
        done = await post_json(
            session,
            f"{base_url}/auth/login_flow/{flow['flow_id']}",
            json={"client_id": CLIENT_ID, "username": username, "password": password},
        )
        tokens = await tokens_for_code(session, base_url, done["result"])
    async with ha_client(base_url, tokens["access_token"]) as client:
        made = await client.call(
            {"type": "auth/long_lived_access_token", "client_name": "peer bench", "lifespan": 1}
        )
    return str(made)


class PeerClient:
    """Asks HA's own stack, as the evaluation's `AgentClient` asks the app."""

    def __init__(
        self, base_url: str, admin_token: str, pipeline: str, tokens: Mapping[str, str]
    ) -> None:
        """`tokens`: user id -> that user's HA token."""
        self._ws_url = f"{base_url}/api/websocket"
        self._admin = admin_token
        self._pipeline = pipeline
        self._tokens = dict(tokens)

    async def ask_when_warm(
        self,
        text: str,
        user_id: str,
        *,
        conversation_id: str | None = None,
        on_wait: Callable[[dict[str, Any]], None] | None = None,
    ) -> dict[str, Any]:
        """`on_wait` is never called: HA's stack has no warming-up answer."""
        del on_wait
        events = await self._run(self._tokens[user_id], text, conversation_id)
        ended = next((e["data"] for e in events if e["type"] == "intent-end"), None)
        if ended is None:
            error: dict[str, Any] = next((e["data"] for e in events if e["type"] == "error"), {})
            return {"status": "error", "path": "none", "speech": str(error), "actions": []}
        output = ended["intent_output"]
        conversation = output.get("conversation_id")
        local = bool(ended.get("processed_locally"))
        response = output["response"]
        actions = _local_actions(response) if local else await self._llm_actions(conversation)
        speech = str(response.get("speech", {}).get("plain", {}).get("speech") or "")
        return {
            "status": _status(response, speech, actions),
            "path": LOCAL_PATH if local else LLM_PATH,
            "speech": speech,
            "actions": actions,
            "conversation_id": conversation,
        }

    async def _run(self, token: str, text: str, conversation_id: str | None) -> list[Any]:
        message: dict[str, Any] = {
            "type": "assist_pipeline/run",
            "start_stage": "intent",
            "end_stage": "intent",
            "input": {"text": text},
            "pipeline": self._pipeline,
            "conversation_id": conversation_id,
            "timeout": 600,
        }
        events: list[Any] = []
        async with _socket(self._ws_url, token) as ws:
            await ws.send_json({"id": 1, **message})
            while True:
                reply = await ws.receive_json(timeout=600)
                if reply.get("type") == "result" and not reply.get("success"):
                    raise SetupError(f"assist_pipeline/run: {reply.get('error')}")
                if reply.get("type") != "event":
                    continue
                events.append(reply["event"])
                if reply["event"]["type"] in ("run-end", "error"):
                    return events

    async def _llm_actions(self, conversation_id: str | None) -> list[dict[str, Any]]:
        """The tools HA's LLM called in this turn, from the chat log (admin only)."""
        if not conversation_id:
            return []
        async with _socket(self._ws_url, self._admin) as ws:
            await ws.send_json(
                {
                    "id": 1,
                    "type": "conversation/chat_log/subscribe",
                    "conversation_id": conversation_id,
                }
            )
            while True:
                reply = await ws.receive_json(timeout=30)
                if reply.get("type") == "result" and not reply.get("success"):
                    return []
                event = reply.get("event") or {}
                if reply.get("type") == "event" and event.get("event_type") == "initial_state":
                    return _turn_actions(event["data"].get("content") or [])


def _turn_actions(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    last_user = max((i for i, c in enumerate(content) if c.get("role") == "user"), default=-1)
    actions = []
    for item in itertools.islice(content, last_user + 1, None):
        if item.get("role") != "tool_result":
            continue
        name = str(item.get("tool_name"))
        if name in READ_TOOLS:
            continue
        result = item.get("tool_result") or {}
        failed = "error" in result or result.get("response_type") == "error"
        actions.append(
            {
                "tool": CONTROL_TOOLS.get(name, GENERIC_CONTROL),
                "ha_tool": name,
                "outcome": "failed" if failed else "executed",
                "entity_ids": _targets(result.get("data") or {}),
            }
        )
    return actions


def _local_actions(response: dict[str, Any]) -> list[dict[str, Any]]:
    if response.get("response_type") != "action_done":
        return []
    entity_ids = _targets(response.get("data") or {})
    if not entity_ids:
        return []
    return [
        {
            "tool": GENERIC_CONTROL,
            "ha_tool": "local intent",
            "outcome": "executed",
            "entity_ids": entity_ids,
        }
    ]


def _targets(data: Mapping[str, Any]) -> list[str]:
    return [
        str(t["id"]) for t in data.get("success") or () if t.get("type") == "entity" and t.get("id")
    ]


def _status(response: Mapping[str, Any], speech: str, actions: list[dict[str, Any]]) -> str:
    """HA's answer in the evaluation's words: an error is a refusal, a question without
    an action a clarification, anything else done."""
    if response.get("response_type") == "error":
        return "refused"
    if speech.rstrip().endswith("?") and not actions:
        return "needs_clarification"
    return "done"


class _socket:
    """One authenticated connection to HA's WebSocket API."""

    def __init__(self, url: str, token: str) -> None:
        self._url, self._token = url, token
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> aiohttp.ClientWebSocketResponse:
        self._session = aiohttp.ClientSession()
        ws = await self._session.ws_connect(self._url, max_msg_size=0)
        await ws.receive_json()  # auth_required
        await ws.send_json({"type": "auth", "access_token": self._token})
        answer = await ws.receive_json()
        if answer.get("type") != "auth_ok":
            await self._session.close()
            raise SetupError(f"HA refused the token: {answer.get('type')}")
        return ws

    async def __aexit__(self, *exc: object) -> None:
        if self._session is not None:
            await self._session.close()
