"""Fixtures shared by the app's tests: an HTTP client, and `ModelHostStandIn`, the stand-in
for Hugging Face's file hosting (the internet is not reachable from tests), over https with
a throw-away CA."""

from __future__ import annotations

from collections.abc import AsyncIterator
import ssl

import aiohttp
import pytest

from devkit.model_host import ModelHostStandIn
from devkit.tiny_gguf import TINY_QWEN35, write_model
from tests.app.model_host import NAME
from tests.mqtt.pki import ThrowawayPki


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> ThrowawayPki:
    return ThrowawayPki.create(tmp_path_factory.mktemp("pki"))


@pytest.fixture
async def session(pki: ThrowawayPki, socket_enabled: None) -> AsyncIterator[aiohttp.ClientSession]:
    """An HTTP client session, as the app opens one for the Supervisor and downloads; it
    trusts the throw-away CA as the app trusts the public ones."""
    trust = ssl.create_default_context(cafile=pki.ca_cert)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=trust)) as client:
        yield client


@pytest.fixture(scope="module")
def gguf_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return write_model(tmp_path_factory.mktemp("host") / NAME, TINY_QWEN35).read_bytes()


@pytest.fixture
async def host(
    gguf_bytes: bytes, pki: ThrowawayPki, socket_enabled: None
) -> AsyncIterator[ModelHostStandIn]:
    """The stand-in for Hugging Face, over https (the app fetches models over https only)."""
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(pki.server_cert, pki.server_key)
    stand_in = ModelHostStandIn(files={NAME: gguf_bytes}, tls=tls)
    await stand_in.start()
    yield stand_in
    await stand_in.stop()
