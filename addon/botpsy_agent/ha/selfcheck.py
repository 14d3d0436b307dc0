"""Start-up self-check of Home Assistant's REST API, with the `homeassistant-api` package.

    report = await self_check(endpoint)     # never raises for HA trouble
    if not report.ok: log report.problem (code + message) and keep retrying or stop

One-shot REST calls are what `homeassistant-api` does well (its async client checks `/api/`
on entry); the live connection is our own WebSocket client (docs/decisions.md, D10).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
import logging

from homeassistant_api import AsyncClient
from homeassistant_api.errors import HomeassistantAPIError, UnauthorizedError
from niquests import AsyncSession

from botpsy_agent.ha.client import HaEndpoint
from botpsy_agent.ha.errors import HaError

_LOGGER = logging.getLogger(__name__)
AUTH_FAILED = "auth_failed"
"""The problem's code when HA refused the token (as `HaAuthFailed` says it)."""


@dataclass(frozen=True)
class SelfCheckReport:
    """What HA's REST API said at start-up."""

    ok: bool
    version: str | None = None
    location_name: str | None = None
    time_zone: str | None = None
    problem: HaError | None = None

    @property
    def token_rejected(self) -> bool:
        """HA refused the token: trying again, or over the WebSocket API, cannot help."""
        return self.problem is not None and self.problem.code == AUTH_FAILED


async def self_check(endpoint: HaEndpoint, timeout_s: float = 10.0) -> SelfCheckReport:
    """Is HA's API running for this token, and which HA is it (version, name, time zone)?"""
    # Our own session, closed here: the client does not close its session when the check on
    # entering fails (its __aexit__ never runs then).
    session = AsyncSession()
    try:
        async with asyncio.timeout(timeout_s):
            async with AsyncClient(
                endpoint.rest_url,
                endpoint.token,
                session=session,
                global_request_kwargs={"timeout": timeout_s},
            ) as api:  # entering checks GET /api/ ("API running.")
                config = await api.get_config()
    except UnauthorizedError:
        return _failed(AUTH_FAILED, "Home Assistant rejected the access token")
    except TimeoutError:
        return _failed("unreachable", f"Home Assistant did not answer within {timeout_s:g} s")
    except (HomeassistantAPIError, OSError) as err:
        return _failed("unreachable", f"Home Assistant's API is not usable: {_first_line(err)}")
    finally:
        await session.close()
    report = SelfCheckReport(
        ok=True,
        version=config.get("version"),
        location_name=config.get("location_name"),
        time_zone=config.get("time_zone"),
    )
    _LOGGER.info(
        "Home Assistant %s (%s) answers at %s",
        report.version,
        report.location_name,
        endpoint.rest_url,
    )
    return report


def _failed(code: str, message: str) -> SelfCheckReport:
    _LOGGER.warning("Home Assistant self-check failed: %s", message)
    return SelfCheckReport(ok=False, problem=HaError(code, message))


def _first_line(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0]
