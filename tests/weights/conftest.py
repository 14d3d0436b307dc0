"""`ModelHostStandIn`, the stand-in for Hugging Face's file hosting (the internet is not
reachable from tests), serving a tiny GGUF over https with the throw-away CA (`pki`, with the
HTTP client `session` that trusts it, in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
import ssl

import pytest

from devkit.model_host import ModelHostStandIn
from devkit.tiny_gguf import TINY_QWEN35, write_model
from tests.mqtt.pki import ThrowawayPki
from tests.weights.model_host import NAME


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
