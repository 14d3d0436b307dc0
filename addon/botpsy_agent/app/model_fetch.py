"""The model file made present after the app is up (issue 30, item 1: connect first).

The first start downloads 0.5 to 1.5 GB. The app connects to HA and MQTT first (the fast path
serves meanwhile, the health check passes, so the Supervisor's start does not wait), then
`ModelFetcher.run` downloads: HA's model-state sensor shows `downloading 42 %` with the
size and the time left, and a notification says when the download starts and how it ended.
A file already there is only checked, without a notification.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
import logging
from pathlib import Path
from typing import Any

import aiohttp

from botpsy_agent.app.startup_notice import notice_words
from botpsy_agent.ha import Notice, Notifications
from botpsy_agent.weights import MB, DownloadError, DownloadProgress, ModelPlan, ensure_model

_LOGGER = logging.getLogger(__name__)
NOTICE_KEY = "model_download"
NO_DOWNLOAD_STATS: dict[str, Any] = {
    "download_percent": None,
    "download_eta_s": None,
    "download_bytes": None,
    "download_total_bytes": None,
}
"""The download's part of the `stats` topic while nothing downloads."""


@dataclass(frozen=True)
class ModelFetch:
    """How to make the model file present: what the options chose, and how to fetch it."""

    plan: ModelPlan
    offline: bool
    session: Callable[[], aiohttp.ClientSession] = field(default=aiohttp.ClientSession)
    """Opens the HTTP session for the download (tests and the demo trust their own CA)."""
    progress_interval_s: float = 5.0
    attempts: int = 5
    """Tries before a broken download counts as failed (each resumes the last)."""


class ModelFetcher:
    """One run of `ensure_model`, observable while it runs."""

    def __init__(
        self,
        fetch: ModelFetch,
        notifications: Notifications | None,
        on_progress: Callable[[DownloadProgress], None],
    ) -> None:
        self._fetch = fetch
        self._notifications = notifications
        self._on_progress = on_progress
        self.progress: DownloadProgress | None = None
        """The last report while a download runs; None before and after."""

    @property
    def needs_download(self) -> bool:
        return not self._fetch.plan.path.exists()

    def stats(self) -> dict[str, Any]:
        """The `stats` topic's download fields (HA's model-state sensor and its attributes)."""
        progress = self.progress
        if progress is None:
            return dict(NO_DOWNLOAD_STATS)
        eta = progress.eta_s
        return {
            "download_percent": progress.percent,
            "download_eta_s": None if eta is None else round(eta),
            "download_bytes": progress.done,
            "download_total_bytes": progress.total,
        }

    async def run(self) -> Path:
        """The model file, present and checked; raises `DownloadError` with its code."""
        fetch = self._fetch
        plan = fetch.plan
        if not self.needs_download or plan.url is None or fetch.offline:
            # Present (only checked), or it cannot be downloaded: ensure_model says why.
            return await ensure_model(plan, session=None, offline=fetch.offline)
        size = f" ({plan.approx_bytes / MB:.0f} MB)" if plan.approx_bytes else ""
        self.progress = DownloadProgress(plan.path.name, 0, plan.approx_bytes, 0.0)
        self._on_progress(self.progress)
        await self._notify("downloading", model=plan.label, size=size)
        try:
            async with fetch.session() as session:
                path = await ensure_model(
                    plan,
                    session=session,
                    offline=False,
                    on_progress=self._progressed,
                    progress_interval_s=fetch.progress_interval_s,
                    attempts=fetch.attempts,
                )
        except DownloadError as err:
            await self._notify(
                "download_failed", model=plan.label, code=err.code, error=err.message
            )
            raise
        finally:
            self.progress = None
        await self._notify("downloaded", model=plan.label)
        return path

    def _progressed(self, progress: DownloadProgress) -> None:
        self.progress = progress
        self._on_progress(progress)

    async def _notify(self, phrase: str, **values: str) -> None:
        """The notice `phrase` (its title; `<phrase>_message` its text) in HA's language."""
        if self._notifications is not None:
            words = await notice_words(self._notifications)
            title, message = words(phrase, **values), words(f"{phrase}_message", **values)
            await self._notifications.show(Notice(NOTICE_KEY, title, message))
