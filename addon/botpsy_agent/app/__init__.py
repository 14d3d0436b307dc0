"""The running app: the options (`config`), start-up and wiring (`startup`, `runtime`), the
health file (`health`), the CPU check (`cpu`), the `doctor` and `audit` commands. It imports
every other part; only the command line (`__main__`) imports it.

Its face is lazy (`botpsy_agent.lazy_face`): each command imports what it needs when it
runs, so that `health`, which the container runs every 30 s, stays light."""

from typing import TYPE_CHECKING

from botpsy_agent import lazy_face

if TYPE_CHECKING:
    from botpsy_agent.app.audit_command import add_audit_command
    from botpsy_agent.app.config import OptionsError, load_app_settings
    from botpsy_agent.app.doctor import run_doctor
    from botpsy_agent.app.health import HEALTH_MAX_AGE_S, check_health, default_health_path
    from botpsy_agent.app.startup import serve

__all__ = [
    "HEALTH_MAX_AGE_S",
    "OptionsError",
    "add_audit_command",
    "check_health",
    "default_health_path",
    "load_app_settings",
    "run_doctor",
    "serve",
]

__getattr__ = lazy_face(
    __name__,
    {
        "add_audit_command": "audit_command",
        "OptionsError": "config",
        "load_app_settings": "config",
        "run_doctor": "doctor",
        "HEALTH_MAX_AGE_S": "health",
        "check_health": "health",
        "default_health_path": "health",
        "serve": "startup",
    },
)
