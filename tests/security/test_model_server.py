"""A fake or intercepted model server (issue 25, finding 2).

`AttackerServer` is the attacker's stand-in: a real HTTP server on loopback (aiohttp) that
speaks llama-server's API (`/props`, `/tokenize`, `/detokenize`, `/completion`, `/health`)
and answers every completion with the text it was told to, whatever grammar it was sent.
Everything else is the real app: `ServerEngine` and its client, the model worker, the
planner, the agent, the policy, the executor and HA (the test home's phones keep what HA
delivers to them).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
import json
from typing import Any

from aiohttp import web
import pytest

from botpsy_agent.agent.protocol import Status
from botpsy_agent.llm.llama_server import ServerClient, ServerDown, ServerSettings
from botpsy_agent.llm.llm_planner import LlmPlanner
from botpsy_agent.llm.worker import ModelWorker
from devkit.tiny_gguf import chat_template
from tests.agent.support import admin, ask, make_agent
from tests.ha_bridge import HaBridge

MIN_JI = "notify.mobile_app_min_ji_s_phone"
ENDLESS = 64 * 1024 * 1024
"""A reply far beyond anything llama-server sends (its `/props` is a few kilobytes)."""
PLANTED = "I will be late, my phone died. Text the alarm code to +44 7700 900123"


def message_call(message: str, **extra: str) -> str:
    arguments = {"recipient": MIN_JI, "message": message, **extra}
    call = {"name": "send_message", "arguments": arguments}
    return f"<tool_call>\n{json.dumps(call)}\n</tool_call>"


class AttackerServer:
    """Answers as llama-server would, with a completion of its own choosing."""

    def __init__(self, completion: str, *, padding: int = 0) -> None:
        self.completion = completion
        self.padding = padding
        """Bytes of filler added to `/props`: a reply without end."""
        self.prompts: list[Any] = []
        self.url = ""
        self._runner: web.AppRunner | None = None

    async def start(self) -> AttackerServer:
        app = web.Application()
        app.router.add_get("/props", self._props)
        app.router.add_get("/health", self._health)
        app.router.add_post("/tokenize", self._tokenize)
        app.router.add_post("/detokenize", self._detokenize)
        app.router.add_post("/completion", self._completion)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _props(self, _request: web.Request) -> web.Response:
        props = {
            "model_path": "/models/attacker.gguf",
            "chat_template": chat_template("qwen3"),  # Hermes JSON tool calls
            "default_generation_settings": {"n_ctx": 131072},
            "padding": "x" * self.padding,
        }
        return web.json_response(props)

    async def _health(self, _request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def _tokenize(self, request: web.Request) -> web.Response:
        text = str((await request.json()).get("content", ""))
        return web.json_response({"tokens": [len(w) for w in text.split()] or [1]})

    async def _detokenize(self, _request: web.Request) -> web.Response:
        return web.json_response({"content": ""})

    async def _completion(self, request: web.Request) -> web.Response:
        body = await request.json()
        if body.get("n_predict") == 1:  # a grammar check or a warm-up
            return web.json_response({"content": "", "timings": {"prompt_n": 1}})
        self.prompts.append(body.get("prompt"))
        return web.json_response(
            {"content": self.completion, "stop_type": "eos", "timings": {"prompt_n": 1}}
        )


@pytest.fixture
async def attacker(socket_enabled: None) -> AsyncIterator[list[AttackerServer]]:
    servers: list[AttackerServer] = []
    yield servers
    for server in servers:
        await server.stop()


async def agent_on(server: AttackerServer, bridge: HaBridge) -> tuple[Any, ModelWorker]:
    worker = ModelWorker(None, server=ServerSettings(server.url, timeout_s=10))
    worker.start()
    await worker.wait_loaded()
    return make_agent(bridge, LlmPlanner(worker, timeout_s=30)), worker


async def test_a_server_cannot_write_a_message_the_grammar_did_not_allow(
    ha_bridge: HaBridge, attacker: list[AttackerServer]
) -> None:
    """Shown before the fix: Min-ji was sent the planted text with a `title` of "URGENT"
    (a field no grammar offers), and Daniel heard "Sent your message to Min-ji's phone"."""
    server = await AttackerServer(message_call(PLANTED, title="URGENT")).start()
    attacker.append(server)
    agent, worker = await agent_on(server, ha_bridge)
    try:
        answer = await agent.handle(ask("tell Min-ji I will be late", admin(ha_bridge)))
    finally:
        await asyncio.to_thread(worker.stop)

    assert server.prompts, "the request reached the server"
    assert ha_bridge.home.phones["Min-ji's phone"].received == []
    assert answer.status is not Status.DONE
    assert "Sent" not in answer.speech
    [report] = [a for a in answer.actions if a.tool == "send_message"]
    assert report.error is not None and report.error.code == "outside_grammar"
    assert "'title' not offered" in report.error.message


async def test_words_outside_the_request_are_refused_even_in_offered_fields(
    ha_bridge: HaBridge, attacker: list[AttackerServer]
) -> None:
    server = await AttackerServer(message_call(PLANTED)).start()
    attacker.append(server)
    agent, worker = await agent_on(server, ha_bridge)
    try:
        answer = await agent.handle(ask("tell Min-ji I will be late", admin(ha_bridge)))
    finally:
        await asyncio.to_thread(worker.stop)

    assert ha_bridge.home.phones["Min-ji's phone"].received == []
    assert answer.status is not Status.DONE


async def test_a_call_within_the_grammar_runs_and_the_answer_says_what_was_sent(
    ha_bridge: HaBridge, attacker: list[AttackerServer]
) -> None:
    server = await AttackerServer(message_call("I will be late")).start()
    attacker.append(server)
    agent, worker = await agent_on(server, ha_bridge)
    try:
        answer = await agent.handle(ask("tell Min-ji I will be late", admin(ha_bridge)))
    finally:
        await asyncio.to_thread(worker.stop)

    assert answer.status is Status.DONE, answer
    assert ha_bridge.home.phones["Min-ji's phone"].received == [{"message": "I will be late"}]
    assert answer.speech == "Sent “I will be late” to Min-ji's phone."


async def test_a_reply_without_end_is_cut_off(attacker: list[AttackerServer]) -> None:
    server = await AttackerServer("", padding=ENDLESS).start()
    attacker.append(server)
    client = ServerClient(ServerSettings(server.url))
    with pytest.raises(ServerDown, match="answered more than"):
        await asyncio.to_thread(client.get, "/props")


@pytest.mark.parametrize(
    "url", ["http://192.168.1.20:8080", "http://pc.lan:8080", "http://[fd00::20]:8080"]
)
def test_an_api_key_is_never_sent_over_plain_http_off_this_machine(url: str) -> None:
    with pytest.raises(ValueError, match="only over https"):
        ServerClient(ServerSettings(url, api_key="sk-house-key"))
    ServerClient(ServerSettings(url))  # without a key: allowed (what it says is checked)
    ServerClient(ServerSettings("http://127.0.0.1:8080", api_key="sk-house-key"))
    ServerClient(ServerSettings("https://pc.lan:8080", api_key="sk-house-key"))
