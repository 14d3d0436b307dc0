"""The app's AppArmor profile compiles with the real `apparmor_parser`, as the Supervisor loads it.

The Supervisor (2026.08.0, `supervisor/utils/apparmor.py` `adjust_profile` and
`apps/app.py` `install_apparmor`) renames the file's one top-level profile to the app's full
slug, `<first 8 hex of sha1(repository url)>_<slug>`, and the OS agent loads it with
`apparmor_parser`. A profile the parser rejects fails the install on every AppArmor host, so
the test compiles the renamed copy with Debian's parser (`-Q`: do not load into a kernel,
`-K`: no cache), which `script/env` installs.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
import re
import shutil
import subprocess

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ADDON = ROOT / "addon"
TOP_LEVEL_PROFILE = re.compile(r"^profile ([^ ]+).*$")  # the Supervisor's RE_PROFILE


def apparmor_parser() -> str:
    """The parser's path; it lives in /usr/sbin, which a user's PATH may not hold."""
    search = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
    found = shutil.which("apparmor_parser", path=search)
    if found is None:
        pytest.fail("apparmor_parser is missing: `make env` installs Debian's apparmor package")
    return found


def supervisor_slug() -> str:
    """The slug the Supervisor gives the app from our repository (store/utils.py)."""
    repository = yaml.safe_load((ROOT / "repository.yaml").read_text(encoding="utf-8"))
    config = yaml.safe_load((ADDON / "config.yaml").read_text(encoding="utf-8"))
    repository_hash = hashlib.sha1(str(repository["url"]).lower().encode()).hexdigest()[:8]
    return f"{repository_hash}_{config['slug']}"


def renamed_profile(text: str, name: str) -> str:
    """The profile as the Supervisor writes it: its one top-level profile renamed to `name`."""
    names = {m.group(1) for line in text.splitlines() if (m := TOP_LEVEL_PROFILE.match(line))}
    assert len(names) == 1, f"the Supervisor needs exactly one top-level profile, found {names}"
    original = names.pop()
    return "".join(
        line.replace(original, name, 1) if TOP_LEVEL_PROFILE.match(line) else line
        for line in text.splitlines(keepends=True)
    )


def compile_profile(text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / "apparmor.txt"
    profile.write_text(text, encoding="utf-8")
    return subprocess.run(
        [apparmor_parser(), "-Q", "-K", str(profile)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_profile_compiles_under_the_name_the_supervisor_gives_it(tmp_path: Path) -> None:
    slug = supervisor_slug()
    text = renamed_profile((ADDON / "apparmor.txt").read_text(encoding="utf-8"), slug)
    assert f"profile {slug} flags=" in text

    result = compile_profile(text, tmp_path)

    assert result.returncode == 0, result.stderr


def test_the_parser_rejects_what_the_supervisor_could_not_load(tmp_path: Path) -> None:
    """The check is real: the glob exec rule next to `file,` that broke installs fails here."""
    broken = (
        "#include <tunables/global>\n"
        "profile botpsy flags=(attach_disconnected,mediate_deleted) {\n"
        "  #include <abstractions/base>\n"
        "  file,\n"
        "  /usr/local/bin/python3* cx -> botpsy_service,\n"
        "  profile botpsy_service {\n"
        "    #include <abstractions/base>\n"
        "  }\n"
        "}\n"
    )

    result = compile_profile(broken, tmp_path)

    assert result.returncode != 0
    assert "conflicting x modifiers" in result.stderr


def test_the_service_profile_covers_the_interpreter_the_image_runs() -> None:
    """The exact path wins over `file,` (a glob would conflict), so it must name the image's
    Python: the Dockerfile's `python:3.X` stage installs /usr/local/bin/python3.X, which the
    venv's `python` links to and AppArmor resolves to."""
    dockerfile = (ADDON / "Dockerfile").read_text(encoding="utf-8")
    version = re.search(r"^FROM python:(3\.\d+)-", dockerfile, re.MULTILINE)
    assert version is not None
    profile = (ADDON / "apparmor.txt").read_text(encoding="utf-8")
    assert f"/usr/local/bin/python{version.group(1)} cx -> botpsy_service," in profile
    # s6-overlay signals the service: its peer is the renamed outer profile.
    assert re.search(r"signal \(receive\) peer=\*_botpsy,", profile)
