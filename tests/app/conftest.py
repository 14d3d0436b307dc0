"""Fixtures shared by the app's tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest


@pytest.fixture
async def session(socket_enabled: None) -> AsyncIterator[aiohttp.ClientSession]:
    """An HTTP client session, as the app opens one for the Supervisor and downloads."""
    async with aiohttp.ClientSession() as client_session:
        yield client_session
