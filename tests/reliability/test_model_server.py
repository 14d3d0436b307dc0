"""The whole app with a model server: requests over MQTT go to llama-server while it is up,
to the local model while it is down (the one in flight included), and back; the stats topic
and the health detail say which engine serves."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from homeassistant.core import HomeAssistant
import pytest

from botpsy_agent.llm.llama_server import ServerSettings
from devkit.llama_server import LlamaServer
from devkit.mosquitto import MosquittoBroker
from tests.ha_bridge import wait_until
from tests.ha_home import HaHome
from tests.ha_server import HomeAssistantApiServer
from tests.mqtt.client import ApiClient, subscribed_client
from tests.reliability.harness import RESPONSE, ROOT, app_config, model_ready, running_app

STATS = f"{ROOT}/stats"
TABLET_REQUEST = f"{ROOT}/request/kids-tablet"
TABLET_RESPONSE = f"{RESPONSE}/kids-tablet"

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
async def client(mosquitto: MosquittoBroker) -> AsyncIterator[ApiClient]:
    async with subscribed_client(mosquitto, f"{RESPONSE}/#", STATS) as api_client:
        api_client.patience_s = 30
        yield api_client


async def model_answer(client: ApiClient, request_id: str) -> dict[str, Any]:
    """A model-path request of the kids' tablet, as a dry run (random calls change nothing)."""
    client.publish(
        TABLET_REQUEST, {"id": request_id, "text": "hmm, what about sam?", "dry_run": True}
    )
    answer: dict[str, Any] = await client.response(TABLET_RESPONSE, request_id)
    assert answer["path"] == "model", answer
    assert (answer.get("error") or {}).get("code") not in {"model_unavailable", "internal_error"}
    return answer


async def engine_in_stats(client: ApiClient, engine: str) -> None:
    await client.expect(STATS, lambda m: m.json().get("model_engine") == engine)


async def test_the_server_serves_the_local_model_stands_in_and_the_stats_say_which(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    client: ApiClient,
    tiny_qwen3_gguf: Path,
    tmp_path: Path,
) -> None:
    server = LlamaServer(tiny_qwen3_gguf, tmp_path / "server.log", context_length=8192).start()
    config = app_config(
        ha_api,
        mosquitto,
        tmp_path,
        model=tiny_qwen3_gguf,
        model_server=ServerSettings(server.url, timeout_s=10),
        model_server_probe_s=0.5,
    )
    try:
        async with running_app(config) as app:
            await model_ready(app)
            worker = app.worker
            assert worker is not None
            await model_answer(client, "s1")
            await engine_in_stats(client, "server")
            served_by_server = worker.served["server"]
            assert served_by_server >= 1

            server.kill()
            await model_answer(client, "s2")  # the local model answers
            await engine_in_stats(client, "local")
            await wait_until(
                lambda: "model server down (the local model serves)" in app.health.snapshot.detail,
                10,
            )
            assert worker.served["server"] == served_by_server

            server.start()
            await wait_until(lambda: worker.engine is worker.router.server, 10)  # type: ignore[union-attr]
            await model_answer(client, "s3")
            await engine_in_stats(client, "server")
            assert worker.served["server"] > served_by_server
            await wait_until(lambda: "model_server" not in app.health.snapshot.detail, 10)
        answers = Counter(m.json()["id"] for m in client.received(TABLET_RESPONSE))
        assert answers == {"s1": 1, "s2": 1, "s3": 1}  # each answered once
    finally:
        server.stop()
