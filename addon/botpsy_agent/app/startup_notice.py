"""What HA's notification says when the app cannot start (issue 30, item 2).

Before, a bad option, a full disk, a CPU without AVX2 or a failed model check was one log
line and a stopped app: HA showed nothing. Now the same lines also reach HA's notification
panel, under one id per instance (`botpsy_<instance>_startup`), so a second failure
replaces the first and the next good start takes it away. Each notice names what to fix
and where, in HA's own language (`NoticeWords`; the log's own lines, which hold no secret,
are quoted as they are). The same words go to the instance's integration as an event,
which it raises as an admin-only repair issue (D85).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
import errno
from typing import Any

from botpsy_agent.agent import Phrasebook
from botpsy_agent.contract import STARTUP_PROBLEM_EVENT, StartupReport
from botpsy_agent.ha import Notice, Notifications

STARTUP_NOTICE = "startup"
_PHRASES = Phrasebook()
"""One phrasebook for every notice: it reads its catalogues once, at the first one."""


@dataclass(frozen=True)
class NoticeWords:
    """The notices' sentences (translations/<language>.yaml, `notices`) in HA's language,
    English where that language has none."""

    language: str
    phrases: Phrasebook = field(default_factory=lambda: _PHRASES)

    def __call__(self, key: str, **values: Any) -> str:
        return self.phrases.say(self.language, f"notices.{key}", **values)


async def notice_words(notifications: Notifications) -> NoticeWords:
    return NoticeWords(await notifications.language())


@dataclass(frozen=True)
class Title:
    """A notice's title: its phrase and the values it names (a model file's error code)."""

    key: str = "not_started"
    values: Mapping[str, str] = field(default_factory=dict)


async def say_startup_problem(notifications: Notifications, notice: Notice) -> None:
    """Say in HA why the app did not start: a notification every user sees, then the event
    from which the integration (when one is set up) raises a repair issue for admins and
    takes the notification away; it must find the notification there."""
    await notifications.show(notice)
    report = StartupReport(
        notifications.instance,
        notice.title,
        notice.message,
        notifications.notification_id(notice.key),
    )
    await notifications.fire(STARTUP_PROBLEM_EVENT, report.to_json())


def options_notice(problems: Sequence[str], words: NoticeWords) -> Notice:
    """Options the Supervisor accepted but the app cannot use: each option and why."""
    return Notice(STARTUP_NOTICE, words("bad_option"), _lines(problems, words("fix_options")))


def resolve_notice(lines: Sequence[str], title: Title, words: NoticeWords) -> Notice:
    """The options could not be turned into a running app (CPU, model file, broker)."""
    return Notice(STARTUP_NOTICE, words(title.key, **title.values), _lines(lines, words("see_log")))


def start_notice(err: BaseException, lines: Sequence[str], words: NoticeWords) -> Notice:
    """The app failed while it started: a full disk is named as such."""
    if isinstance(err, OSError) and err.errno == errno.ENOSPC:
        return Notice(STARTUP_NOTICE, words("disk_full"), _lines(lines, words("free_space")))
    return Notice(STARTUP_NOTICE, words("not_started"), _lines(lines, words("see_log")))


def _lines(lines: Sequence[str], advice: str) -> str:
    listed = "\n".join(f"- {line}" for line in lines)
    return f"{listed}\n\n{advice}"
