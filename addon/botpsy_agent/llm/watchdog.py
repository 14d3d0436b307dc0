"""Notices a model worker that crashed or hangs, and has it replaced.

The worker answers its own timeouts (`ModelTimeout`) and cancels the job; a job that keeps
running `grace_s` after it was asked to stop is stuck in code that never checks the flag, and
nothing after it in the queue would ever run. A thread that ended by itself is no better. In
either case the owner's `restart` builds a fresh worker (the fast path serves meanwhile; model
requests wait for the new one or get a clear error). Jobs that merely fail are not a reason:
their error is the answer, and a failure that repeats (a bug, a bad prompt) would repeat after
a reload too. Nor is a model that fails to *load*: the same file fails the same way, and the
health status says so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
import logging
import time

from botpsy_agent.llm.worker import ModelWorker

_LOGGER = logging.getLogger(__name__)
WATCHDOG_INTERVAL_S = 1.0
HANG_GRACE_S = 10.0


class WorkerWatchdog:
    """Checks the current worker every `interval_s`; `run()` until cancelled."""

    def __init__(
        self,
        worker: Callable[[], ModelWorker | None],
        restart: Callable[[str], Awaitable[None]],
        *,
        interval_s: float = WATCHDOG_INTERVAL_S,
        grace_s: float = HANG_GRACE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._worker = worker
        self._restart = restart
        self.interval_s = interval_s
        self.grace_s = grace_s
        self._clock = clock
        self._stopping: tuple[int, int, float] | None = None
        """(worker id, job sequence, when first seen asked to stop but still running)."""
        self.restarts = 0

    def problem(self, worker: ModelWorker) -> str | None:
        """What is wrong with `worker`, in words, or None."""
        if not worker.alive:
            # Not started yet, or ended: only a worker that had started ends by crashing
            # here (the owner swaps a worker out before stopping it).
            return _crashed(worker) if worker.loaded.is_set() else None
        if worker.engine is None:
            return None  # loading, or the model failed to load (see the module docstring)
        return self._hung(worker)

    def _hung(self, worker: ModelWorker) -> str | None:
        job = worker.current_job
        if job is None or not job[1]:
            self._stopping = None
            return None
        key = (id(worker), job[0])
        now = self._clock()
        if self._stopping is None or self._stopping[:2] != key:
            self._stopping = (*key, now)
            return None
        stuck_s = now - self._stopping[2]
        if stuck_s < self.grace_s:
            return None
        return f"a model job ignored its cancellation for {stuck_s:.0f} s: the worker hangs"

    async def check(self) -> bool:
        """One look; True if the worker was restarted."""
        worker = self._worker()
        if worker is None:
            return False
        problem = self.problem(worker)
        if problem is None:
            return False
        _LOGGER.error("The model worker needs a restart: %s", problem)
        self._stopping = None
        self.restarts += 1
        await self._restart(problem)
        return True

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            await self.check()


def _crashed(worker: ModelWorker) -> str:
    return f"the model worker stopped unexpectedly ({worker.crashed!r})"
