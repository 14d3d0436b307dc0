"""`make demo ARGS=--first-start`: the app's first start as a household sees it.

The models folder is empty, so the app downloads its model, the way it does from Hugging
Face, but from a local file server: the stand-in for Hugging Face (devkit/model_host.py)
over https with a throw-away CA, slowed down so that the progress can be watched. The app
connects to HA and MQTT first; the demo then prints each change of the model's state as
the app publishes it for HA's model-state sensor: downloading with percent, size and time
left, loading, the prompt prefix build, ready.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
import contextlib
from dataclasses import dataclass
import json
from pathlib import Path
import ssl
import tempfile
from typing import Any

import aiohttp

from botpsy_agent.app.config import DEFAULT_OPTIONS, parse_options
from botpsy_agent.app.model_fetch import ModelFetch
from botpsy_agent.weights.catalog import CATALOG
from botpsy_agent.weights.options import ModelChoice
from botpsy_agent.weights.store import plan_model
from devkit.model_host import ModelHostStandIn
from devkit.pki import ThrowawayPki
from devkit.tiny_gguf import TINY_QWEN35, cached_model

DOWNLOAD_SECONDS = 12
"""About how long the served download takes."""
REPORT_INTERVAL_S = 0.5


@dataclass(frozen=True)
class FirstStart:
    fetch: ModelFetch
    model_path: Path
    """Where the app will find the file once downloaded (the empty models folder's)."""


@contextlib.asynccontextmanager
async def local_model_server() -> AsyncIterator[FirstStart]:
    """The file server and an empty models folder for the first start; both are removed
    when the demo ends."""
    with tempfile.TemporaryDirectory(prefix="botpsy-first-start-") as folder:
        root = Path(folder)
        (root / "pki").mkdir()
        pki = ThrowawayPki.create(root / "pki")
        body = cached_model(TINY_QWEN35, "tiny-qwen35").read_bytes()
        name = CATALOG[ModelChoice.Q8_0].file_name  # the default option's file
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(pki.server_cert, pki.server_key)
        host = ModelHostStandIn(
            files={name: body}, tls=tls, bytes_per_s=len(body) // DOWNLOAD_SECONDS
        )
        await host.start()
        options = parse_options(
            json.loads(json.dumps(DEFAULT_OPTIONS)) | {"model_mirror": host.url()}
        )
        plan = plan_model(options.model, root / "models", root / "data")
        trust = ssl.create_default_context(cafile=pki.ca_cert)
        fetch = ModelFetch(
            plan,
            offline=False,
            session=lambda: aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=trust)),
            progress_interval_s=2.0,
        )
        try:
            yield FirstStart(fetch, plan.path)
        finally:
            await host.stop()


def describe(stats: dict[str, Any]) -> str:
    """The model's state as HA's model-state sensor and its attributes show it."""
    state = stats.get("model_state")
    if state == "downloading":
        done, total = stats.get("download_bytes") or 0, stats.get("download_total_bytes")
        size = f" ({done / 1e6:.1f} of {total / 1e6:.1f} MB)" if total else ""
        eta = stats.get("download_eta_s")
        left = f", about {eta} s left" if eta is not None else ""
        return f"downloading {stats.get('download_percent')} %{size}{left}"
    if state == "warming_up":
        eta = stats.get("warming_up_eta_s")
        left = f", about {eta} s left" if eta is not None else ""
        return f"building the prompt prefix, {stats.get('warming_up_percent')} %{left}"
    return str(state)


async def report_model_state(
    model_stats: Callable[[], dict[str, Any]], detail: Callable[[], str], say: Callable[[str], None]
) -> None:
    """Print every change of the model's state until cancelled."""
    last = None
    while True:
        line = f"model state: {describe(model_stats())} (health: {detail()})"
        if line != last:
            say(line)
            last = line
        await asyncio.sleep(REPORT_INTERVAL_S)
