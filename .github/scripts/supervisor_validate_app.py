"""Validate the app's files with the Supervisor's own schemas, as the app store reads them.

Run in CI with a checkout of home-assistant/supervisor (at the version
`tests/app/app_rules.py` names) on PYTHONPATH and its requirements installed:

    python .github/scripts/supervisor_validate_app.py addon repository.yaml

It applies `SCHEMA_APP_CONFIG` (the store's verbose schema: migrations, deprecation
advisories, then the schema) to config.yaml, `SCHEMA_APP_TRANSLATIONS` to every
translations/*.yaml, `SCHEMA_REPOSITORY_CONFIG` to repository.yaml, and checks that the
AppArmor profile holds the one top-level profile the Supervisor renames. A schema error or
any advisory the Supervisor logs (a deprecated key or map type, for one) fails the run.
"""

from __future__ import annotations

import logging
from pathlib import Path
import sys
from typing import Any

from supervisor.apps.validate import SCHEMA_APP_CONFIG, SCHEMA_APP_TRANSLATIONS
from supervisor.store.validate import SCHEMA_REPOSITORY_CONFIG
from supervisor.utils.apparmor import get_profile_name
import voluptuous as vol
import yaml


class Advisories(logging.Handler):
    """Collects what the Supervisor logs at warning level or above while validating."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def problems(app: Path, repository: Path) -> list[str]:
    found: list[str] = []
    checks: list[tuple[Path, Any]] = [(app / "config.yaml", SCHEMA_APP_CONFIG)]
    checks += [(path, SCHEMA_APP_TRANSLATIONS) for path in sorted(app.glob("translations/*.y*ml"))]
    checks.append((repository, SCHEMA_REPOSITORY_CONFIG))
    advisories = Advisories()
    logging.getLogger("supervisor").addHandler(advisories)
    for path, schema in checks:
        try:
            schema(load(path))
        except vol.Invalid as err:
            found.append(f"{path}: {err}")
        found += [f"{path}: {message}" for message in advisories.messages]
        advisories.messages.clear()
    apparmor = app / "apparmor.txt"
    if apparmor.exists():
        try:
            get_profile_name(apparmor)
        except Exception as err:  # the Supervisor's AppArmor errors share no public base
            found.append(f"{apparmor}: {err}")
    return found


def main() -> int:
    app, repository = Path(sys.argv[1]), Path(sys.argv[2])
    found = problems(app, repository)
    for problem in found:
        print(f"::error title=Supervisor schema::{problem}", file=sys.stderr)
    if not found:
        print(f"{app} and {repository} pass the Supervisor's schemas")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
