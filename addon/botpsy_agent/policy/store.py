"""The policy in force, loaded from its file and reloaded when the file changes.

A bad edit never weakens anything: the previous policy stays in force and the problem is
logged (and reported to whoever asked for the reload). At start-up there is no previous
policy, so an invalid file stops the app instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass
import logging
from pathlib import Path

from botpsy_agent.policy.loader import PolicyError, load_policy
from botpsy_agent.policy.model import Policy

_LOGGER = logging.getLogger(__name__)
POLICY_POLL_INTERVAL_S = 2.0


@dataclass(frozen=True)
class FileStamp:
    mtime_ns: int
    size: int

    @classmethod
    def of(cls, path: Path) -> FileStamp | None:
        try:
            stat = path.stat()
        except FileNotFoundError:
            return None
        return cls(stat.st_mtime_ns, stat.st_size)


class PolicyStore:
    """Holds the current `Policy`; `reload()` swaps it only for a valid one."""

    def __init__(
        self,
        path: Path,
        known_user_ids: Callable[[], Iterable[str] | None] = lambda: None,
    ) -> None:
        self.path = path
        self._known_user_ids = known_user_ids
        self._policy: Policy | None = None
        self._stamp: FileStamp | None = None
        self.last_error: PolicyError | None = None
        self.on_change: list[Callable[[Policy], None]] = []

    @property
    def policy(self) -> Policy:
        if self._policy is None:
            raise RuntimeError("the policy has not been loaded")
        return self._policy

    def load(self) -> Policy:
        """First load: raises `PolicyError` (the app must not start with a bad policy)."""
        stamp = FileStamp.of(self.path)
        self._policy = load_policy(self.path, self._known_user_ids())
        self._stamp = stamp
        self.last_error = None
        _LOGGER.info("Policy loaded from %s", self.path)
        return self._policy

    def reload(self) -> PolicyError | None:
        """Load the file again; on error keep the policy in force and return the error."""
        stamp = FileStamp.of(self.path)
        try:
            policy = load_policy(self.path, self._known_user_ids())
        except PolicyError as err:
            self._stamp = stamp  # do not report the same broken file every poll
            self.last_error = err
            _LOGGER.error(  # noqa: TRY400 - the message is the whole diagnosis
                "Policy file %s is invalid; the previous policy stays in force:\n%s",
                self.path,
                err,
            )
            return err
        self._policy, self._stamp, self.last_error = policy, stamp, None
        _LOGGER.info("Policy reloaded from %s", self.path)
        for callback in self.on_change:
            callback(policy)
        return None

    def changed_on_disk(self) -> bool:
        return FileStamp.of(self.path) != self._stamp

    async def watch(self, interval_s: float = POLICY_POLL_INTERVAL_S) -> None:
        """Reload whenever the file changes; runs until cancelled."""
        while True:
            await asyncio.sleep(interval_s)
            if self.changed_on_disk():
                self.reload()
