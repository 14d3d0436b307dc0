"""Talk to the app the way the dashboard's Assist does: HA's conversation API with our agent.

HA runs the request through the BotPsy integration, which signs it for the user behind the
token (the demo's admin) and sends it to the app over MQTT; what comes back is HA's own
conversation result.
"""

from __future__ import annotations

import time
from typing import Any

import aiohttp


class AssistClient:
    def __init__(self, base_url: str, token: str, agent_id: str) -> None:
        self._url = f"{base_url}/api/conversation/process"
        self._headers = {"Authorization": f"Bearer {token}"}
        self.agent_id = agent_id

    async def ask(self, text: str, *, conversation_id: str | None = None) -> dict[str, Any]:
        """HA's conversation result, plus `elapsed_ms` measured here."""
        body: dict[str, Any] = {"text": text, "agent_id": self.agent_id, "language": "en"}
        if conversation_id:
            body["conversation_id"] = conversation_id
        started = time.monotonic()
        async with (
            aiohttp.ClientSession(headers=self._headers) as session,
            session.post(self._url, json=body) as response,
        ):
            result: dict[str, Any] = await response.json(content_type=None)
            if response.status >= 400:
                raise RuntimeError(f"HA's conversation API: HTTP {response.status} {result}")
        result["elapsed_ms"] = (time.monotonic() - started) * 1000
        return result


def show_assist(result: dict[str, Any]) -> None:
    response = result.get("response", {})
    speech = response.get("speech", {}).get("plain", {}).get("speech") or "(no words)"
    print(f"assist> {speech}")
    kind = response.get("response_type", "?")
    print(f"        [{kind} · via HA's Assist · {result.get('elapsed_ms', 0):.0f} ms]")
    for target in response.get("data", {}).get("success", []):
        print(f"        • {target.get('id') or target.get('name')} → done")
    for target in response.get("data", {}).get("failed", []):
        print(f"        • {target.get('id') or target.get('name')} → failed")
