"""What HA's notification says when the app cannot start (issue 30, item 2).

Before, a bad option, a full disk, a CPU without AVX2 or a failed model check was one log
line and a stopped app: HA showed nothing. Now the same lines also reach HA's notification
panel, under one id per instance (`botpsy_<instance>_startup`), so a second failure
replaces the first and the next good start takes it away. Each notice names what to fix
and where; the lines are the log's own, which hold no secret. The same words go to the
instance's integration as an event, which it raises as an admin-only repair issue (D85).
"""

from __future__ import annotations

from collections.abc import Sequence
import errno

from botpsy_agent.contract import STARTUP_PROBLEM_EVENT, StartupReport
from botpsy_agent.ha import Notice, Notifications

STARTUP_NOTICE = "startup"
FIX_OPTIONS = "Correct it on the app's Configuration tab, then start the app again."
SEE_LOG = "The app's Log tab has the details. Start the app again once it is fixed."


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


def options_notice(problems: Sequence[str]) -> Notice:
    """Options the Supervisor accepted but the app cannot use: each option and why."""
    return Notice(
        STARTUP_NOTICE,
        "BotPsy did not start: an option is not valid",
        _lines(problems, FIX_OPTIONS),
    )


def resolve_notice(lines: Sequence[str], title: str | None) -> Notice:
    """The options could not be turned into a running app (CPU, model file, broker)."""
    return Notice(STARTUP_NOTICE, title or "BotPsy did not start", _lines(lines, SEE_LOG))


def start_notice(err: BaseException, lines: Sequence[str]) -> Notice:
    """The app failed while it started: a full disk is named as such."""
    if isinstance(err, OSError) and err.errno == errno.ENOSPC:
        return Notice(
            STARTUP_NOTICE,
            "BotPsy did not start: the disk is full",
            _lines(
                lines,
                "Free some space (old backups, unused model files: 'botpsy-agent models "
                "--remove-others'), then start the app again.",
            ),
        )
    return Notice(STARTUP_NOTICE, "BotPsy did not start", _lines(lines, SEE_LOG))


def _lines(lines: Sequence[str], advice: str) -> str:
    listed = "\n".join(f"- {line}" for line in lines)
    return f"{listed}\n\n{advice}"
