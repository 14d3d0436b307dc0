"""The model server backend against a real `llama-server` (built by script/env from the same
vendored llama.cpp as the wheel): tool calls under our grammar, prefix reuse by the server's
own timing fields, fallback to the local model and back, the API key and TLS."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
import contextlib
from datetime import UTC, datetime
import logging
from pathlib import Path
import ssl

import pytest

from botpsy_agent.agent.offer import build_offer
from botpsy_agent.llm.grammar import Mode, build_grammar
from botpsy_agent.llm.llama_cpp import EngineSettings, LlamaEngine
from botpsy_agent.llm.llama_server import ServerEngine, ServerSettings
from botpsy_agent.llm.llm_planner import LlmPlanner
from botpsy_agent.llm.planning import Offer, PlanError, PlanFailure, PlanRequest
from botpsy_agent.llm.prompt import build_prefix, prefix_tokens, render_prompt
from botpsy_agent.llm.worker import ModelServerDown, ModelWorker, model_stats
from botpsy_agent.policy import scope
from devkit.homes import family_home
from devkit.llama_server import LlamaServer
from devkit.mosquitto import free_port
from devkit.real_models import DEFAULT_MODEL, fetch
from devkit.tiny_gguf import ModelShape, cached_model
from tests.ha_bridge import wait_until
from tests.mqtt.pki import ThrowawayPki
from tests.policy.policies import family_policy, parent

pytestmark = [pytest.mark.timeout(600), pytest.mark.usefixtures("socket_enabled")]

# Slow enough on one thread that a request is still in flight when the server is killed.
SLOW_SHAPE = ModelShape(
    arch="qwen3", n_embd=512, n_layer=6, n_head=8, n_head_kv=2, head_dim=64, n_ff=2048,
    context_length=8192,
)  # fmt: skip
NOON = datetime(2026, 11, 30, 12, tzinfo=UTC)
API_KEY = "sk-botpsy-test-7f3a9c"  # a throw-away key for this test's server


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Callable[..., LlamaServer]]:
    servers: list[LlamaServer] = []

    def start(model: Path, **options: object) -> LlamaServer:
        server = LlamaServer(model, tmp_path / f"server-{len(servers)}.log", **options)  # type: ignore[arg-type]
        servers.append(server)
        return server.start()

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
async def workers() -> AsyncIterator[list[ModelWorker]]:
    started: list[ModelWorker] = []
    yield started
    for worker in started:
        await asyncio.to_thread(worker.stop)


async def running(workers: list[ModelWorker], worker: ModelWorker) -> ModelWorker:
    workers.append(worker)
    worker.start()
    with contextlib.suppress(ModelServerDown):
        await worker.wait_loaded()
    return worker


def home_offer() -> Offer:
    home = family_home()
    return build_offer(scope(family_policy(), parent, home, NOON), home)


def request(text: str, request_id: str) -> PlanRequest:
    return PlanRequest(home_offer(), ({"role": "user", "content": text},), "en", request_id, 0)


async def test_the_real_model_on_the_server_makes_a_tool_call_under_the_grammar(
    start_server: Callable[..., LlamaServer], workers: list[ModelWorker]
) -> None:
    server = start_server(fetch(DEFAULT_MODEL), context_length=8192)
    # 2 cores read the ~3,000-token prefix in about half a minute: a patient timeout.
    settings = ServerSettings(server.url, timeout_s=300)
    worker = await running(workers, ModelWorker(None, server=settings))
    planner = LlmPlanner(worker, timeout_s=600)
    assert await planner.check_grammars() > 2  # the server compiled every grammar

    turn = await planner.plan(request("turn on the kitchen light", "r1"))

    assert turn.calls and not turn.problems and not turn.truncated
    assert turn.calls[0].name in home_offer().tool_names
    assert worker.served["server"] == 2 and worker.served["local"] == 0
    assert model_stats(worker)["model_engine"] == "server"


@pytest.mark.parametrize("arch", ["qwen3", "qwen35"])  # plain attention, and hybrid
async def test_the_server_reuses_the_warm_prefix_by_its_own_timings(
    start_server: Callable[..., LlamaServer],
    tiny_qwen3_gguf: Path,
    tiny_qwen35_gguf: Path,
    arch: str,
) -> None:
    server = start_server(tiny_qwen3_gguf if arch == "qwen3" else tiny_qwen35_gguf)
    engine = ServerEngine(ServerSettings(server.url))
    offer = home_offer()
    prefix = prefix_tokens(engine.template, engine.tokenize, build_prefix(offer.listing))
    grammar = build_grammar(offer.schemas, engine.info.tool_format, Mode.REQUIRED)

    assert engine.warm(prefix.tokens, cuts=prefix.cuts)
    assert engine.last_timings["timings"]["prompt_n"] == prefix.prefix_length  # cold: all

    answers = []
    for text in ("turn on the kitchen light", "is the hall window open?"):
        messages = ({"role": "user", "content": text},)
        prompt = render_prompt(
            engine.template, engine.tokenize, build_prefix(offer.listing), messages
        )
        completion = engine.complete(prompt.tokens, prompt.cuts, grammar, 48)
        timings = engine.last_timings["timings"]
        own = len(prompt.tokens) - prefix.prefix_length
        # The server evaluated (about) only the request: the prefix came from its cache.
        # A hybrid model restores a checkpoint a few tokens before the prefix's end.
        assert completion.evaluated_tokens == timings["prompt_n"] <= own + 8
        assert timings["cache_n"] >= prefix.prefix_length - 8
        assert engine.last_timings["tokens_cached"] >= len(prompt.tokens)
        assert completion.prefix_source in ("snapshot", "shared")
        answers.append(completion)
    for completion in answers:  # under the grammar: a tool call in the model's format
        assert completion.text.startswith("<tool_call>"), completion.text


async def test_the_local_model_stands_in_while_the_server_is_down_and_hands_back(
    start_server: Callable[..., LlamaServer],
    workers: list[ModelWorker],
    tiny_qwen3_gguf: Path,
) -> None:
    slow = cached_model(SLOW_SHAPE, "slow-server-qwen3", quantize_q8=True)
    server = start_server(slow, threads=1, extra_args=("--batch-size", "32", "--ubatch-size", "32"))
    local = EngineSettings(tiny_qwen3_gguf, context_length=8192)
    worker = ModelWorker(
        lambda: LlamaEngine(local),
        max_queue=8,
        build_wait_s=600,
        server=ServerSettings(server.url, timeout_s=30),
        probe_interval_s=0.2,
    )
    await running(workers, worker)
    planner = LlmPlanner(worker, max_tokens=16, timeout_s=300)
    assert model_stats(worker)["model_engine"] == "server"

    # The first request builds the whole prefix on the slow server: kill it meanwhile.
    first = asyncio.create_task(planner.plan(request("turn on the kitchen light", "r1")))
    await asyncio.sleep(1.0)
    assert not first.done()
    server.kill()
    turns = [await first]
    assert worker.retried_locally == 1  # nothing was executed yet: planning is redone
    assert model_stats(worker)["model_engine"] == "local"
    turns.append(await planner.plan(request("is the hall window open?", "r2")))
    assert worker.served == Counter(local=2)

    server.start()  # the same port: the probe finds it again
    await wait_until(lambda: model_stats(worker)["model_engine"] == "server", timeout_s=10)
    turns.append(await planner.plan(request("dim the living room light", "r3")))

    # Three requests, three answers: one each, none lost, none given twice.
    assert worker.served == Counter(local=2, server=1)
    assert all(turn.calls or turn.text or turn.truncated for turn in turns)


async def test_without_a_local_model_a_dead_server_is_a_clear_error(
    workers: list[ModelWorker],
) -> None:
    worker = await running(
        workers,
        ModelWorker(None, server=ServerSettings(f"http://127.0.0.1:{free_port()}", timeout_s=2)),
    )
    with pytest.raises(PlanError, match="model server is down") as failed:
        await LlmPlanner(worker).plan(request("turn on the kitchen light", "r1"))
    assert failed.value.failure is PlanFailure.UNAVAILABLE
    assert isinstance(failed.value.__cause__, ModelServerDown)
    assert ModelServerDown.code == "model_server_down"
    assert model_stats(worker)["model_engine"] is None


async def test_the_api_key_is_sent_as_a_bearer_header_and_never_logged(
    start_server: Callable[..., LlamaServer],
    workers: list[ModelWorker],
    tiny_qwen3_gguf: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    server = start_server(tiny_qwen3_gguf, api_key=API_KEY)
    wrong = await running(
        workers, ModelWorker(None, server=ServerSettings(server.url, api_key="sk-wrong-key-1"))
    )
    assert wrong.router is not None and "refused the API key" in str(wrong.router.problem)
    right = await running(
        workers, ModelWorker(None, server=ServerSettings(server.url, api_key=API_KEY))
    )
    turn = await LlmPlanner(right, max_tokens=16).plan(request("turn on the kitchen light", "r"))
    assert turn.calls or turn.truncated
    assert right.served["server"] == 1
    assert API_KEY not in repr(ServerSettings(server.url, api_key=API_KEY))
    assert API_KEY not in caplog.text and "sk-wrong-key-1" not in caplog.text
    assert "refused the API key" in caplog.text  # the problem is logged, the key is not


async def test_https_with_a_ca_file(
    start_server: Callable[..., LlamaServer], tiny_qwen3_gguf: Path, tmp_path: Path
) -> None:
    """Our llama-server is built without OpenSSL, so TLS ends at a proxy in front of it,
    as a reverse proxy would at home; the client verifies it against the CA file."""
    (tmp_path / "pki").mkdir()
    pki = ThrowawayPki.create(tmp_path / "pki")
    server = start_server(tiny_qwen3_gguf)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pki.server_cert, pki.server_key)
    async with tls_proxy(context, server.port) as port:
        url = f"https://127.0.0.1:{port}"
        engine = await asyncio.to_thread(ServerEngine, ServerSettings(url, ca_file=pki.ca_cert))
        tokens = await asyncio.to_thread(engine.tokenize, "turn on the light")
        assert await asyncio.to_thread(engine.detokenize, tokens) == "turn on the light"
        with pytest.raises(Exception, match="CERTIFICATE_VERIFY_FAILED"):
            await asyncio.to_thread(ServerEngine, ServerSettings(url))  # system CAs only


@contextlib.asynccontextmanager
async def tls_proxy(context: ssl.SSLContext, target_port: int) -> AsyncIterator[int]:
    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", target_port)
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    proxy = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
    async with proxy:
        yield proxy.sockets[0].getsockname()[1]


def test_a_stop_string_ends_the_text_as_with_the_local_engine(
    start_server: Callable[..., LlamaServer], tiny_qwen3_gguf: Path
) -> None:
    server = start_server(tiny_qwen3_gguf)
    engine = ServerEngine(ServerSettings(server.url))
    local = LlamaEngine(EngineSettings(tiny_qwen3_gguf, context_length=2048))
    try:
        prompt = local.tokenize("<|im_start|>user\ncount<|im_end|>\n<|im_start|>assistant\n")
        # Greedy, the same weights: both write the same text; stop at its 3rd and 4th characters.
        free = local.complete(prompt, 1, None, 12)
        stop = free.text[2:4]
        ours = local.complete(prompt, 1, None, 12, stop=(stop,))
        theirs = engine.complete(prompt, 1, None, 12, stop=(stop,))
        assert ours.finish_reason == theirs.finish_reason == "stop"
        assert stop in ours.text and theirs.text.endswith(stop)  # ours: the whole last token
        assert theirs.text == ours.text[: ours.text.index(stop) + len(stop)]
    finally:
        local.close()
