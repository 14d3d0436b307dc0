"""The peer bench's HA stack starts: HA core's own `llama_cpp` integration, set up through
its config flow with the packages of requirements/peer.txt (devkit/peer_env.py, outside the
venv), answers a conversation request through a real `llama-server` serving a tiny GGUF.
The whole comparison is bench/peer.py (`make bench ARGS=--peer`): minutes per stack, so not
here."""

from __future__ import annotations

from collections.abc import Iterator
import importlib
from pathlib import Path
import sys
import urllib.request

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import Context, HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component
import pytest

from devkit import peer_env
from devkit.llama_server import LlamaServer
from devkit.tiny_gguf import TINY_QWEN3, cached_model

pytestmark = [pytest.mark.timeout(300), pytest.mark.usefixtures("socket_enabled")]


@pytest.fixture(scope="module")
def peer_packages() -> Iterator[Path]:
    """openai & co. importable in this process only while this module's tests run."""
    folder = peer_env.ensure(lambda line: print(f"[peer] {line}"))
    sys.path.insert(0, str(folder))
    yield folder
    sys.path.remove(str(folder))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LlamaServer]:
    model = cached_model(TINY_QWEN3, "tiny-qwen3")
    started = LlamaServer(
        model, tmp_path / "server.log", context_length=4096, extra_args=("--jinja", "--metrics")
    ).start()
    yield started
    started.stop()


def prompt_tokens(server: LlamaServer) -> float:
    with urllib.request.urlopen(f"{server.url}/metrics", timeout=5) as answer:
        for line in answer.read().decode().splitlines():
            if line.startswith("llamacpp:prompt_tokens_total"):
                return float(line.split()[-1])
    raise AssertionError("llama-server reports no prompt_tokens_total")


def test_peer_lock_installs_outside_the_venv(peer_packages: Path) -> None:
    assert (peer_packages / peer_env.DONE).read_text() == peer_env.LOCK.read_text()
    assert (peer_packages / "openai").is_dir()
    assert not list(Path(sys.prefix).glob("lib/python*/site-packages/openai"))  # not the venv
    openai = importlib.import_module("openai")  # only with the peer folder on the path

    assert openai.__version__ == "3.10.0"
    assert Path(str(openai.__file__)).is_relative_to(peer_packages)


async def test_llama_cpp_answers_through_llama_server(
    hass: HomeAssistant, peer_packages: Path, server: LlamaServer
) -> None:
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "conversation", {})
    flow = await hass.config_entries.flow.async_init("llama_cpp", context={"source": "user"})
    flow = await hass.config_entries.flow.async_configure(
        flow["flow_id"], {"base_url": f"{server.url}/v1"}
    )
    assert flow["type"] is FlowResultType.FORM and flow["step_id"] == "model", flow
    before = prompt_tokens(server)  # the flow has asked the server twice already
    flow = await hass.config_entries.flow.async_configure(
        flow["flow_id"], {"chat_model": "tiny-qwen3"}
    )
    assert flow["type"] is FlowResultType.CREATE_ENTRY, flow
    await hass.async_block_till_done()
    entry = hass.config_entries.async_entries("llama_cpp")[0]
    assert entry.state is ConfigEntryState.LOADED
    assert prompt_tokens(server) > before  # the flow's completion checks reached the server
    # What the options flow stores when a user leaves "recommended" for a token limit: HA
    # asks for up to 3,000 tokens a step, minutes of random words from the tiny model.
    subentry = next(iter(entry.subentries.values()))
    hass.config_entries.async_update_subentry(
        entry, subentry, data={**subentry.data, "recommended": False, "max_tokens": 8}
    )
    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    agents = [
        e.entity_id
        for e in er.async_entries_for_config_entry(er.async_get(hass), entry.entry_id)
        if e.domain == "conversation"
    ]
    assert len(agents) == 1

    asked = prompt_tokens(server)
    result = await conversation.async_converse(
        hass, "turn on the kitchen light", None, Context(), language="en", agent_id=agents[0]
    )

    assert prompt_tokens(server) > asked + 50  # HA's Assist prompt went to llama-server
    assert result.response.error_code is None, result.response.speech
    assert result.conversation_id
