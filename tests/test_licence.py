"""One licence story everywhere: the code is Apache-2.0 (LICENSE), the app image adds GPL code.

HACS's licence check needs the LICENSE file; the image label must name what the image ships:
our code and every locked runtime dependency, read from the installed packages' own metadata.
Why this choice: docs/decisions.md D25.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path
import re
import tomllib

ROOT = Path(__file__).resolve().parents[1]
CODE_LICENCE = "Apache-2.0"


def locked_agent_packages() -> list[str]:
    """The app image's runtime packages: requirements/agent.txt."""
    names = []
    for line in (ROOT / "requirements" / "agent.txt").read_text("utf-8").splitlines():
        requirement = line.split("#", 1)[0].strip()
        if "==" in requirement:
            names.append(requirement.split("==", 1)[0].split("[", 1)[0])
    return names


def declared_licence(package: str) -> str:
    """A package's licence as its metadata states it (expression, field or classifiers)."""
    metadata = importlib.metadata.metadata(package)
    classifiers = [c for c in metadata.get_all("Classifier") or [] if c.startswith("License")]
    return " | ".join(
        filter(None, [metadata.get("License-Expression"), metadata.get("License"), *classifiers])
    )


def copyleft_licences() -> set[str]:
    """The GPL-family licences among the image's packages, as SPDX ids."""
    found = set()
    for package in locked_agent_packages():
        text = declared_licence(package)
        if "GPL" in text or "General Public License" in text:
            match = re.search(r"\b(A?L?GPL-\d\.\d(-or-later|-only)?)", text)
            assert match, f"{package}: name its GPL licence as SPDX: {text!r}"
            found.add(match.group(1))
    return found


def test_license_file_is_the_apache_licence() -> None:
    text = (ROOT / "LICENSE").read_text("utf-8")
    assert "Apache License" in text
    assert "Version 2.0, January 2004" in text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert "END OF TERMS AND CONDITIONS" in text


def test_pyproject_names_the_code_licence() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["license"] == CODE_LICENCE
    assert project["license-files"] == ["LICENSE"]


def test_the_image_label_names_our_licence_and_the_shipped_gpl_code() -> None:
    copyleft = copyleft_licences()
    assert copyleft == {"GPL-3.0-or-later"}  # homeassistant-api; a new one must be a choice
    dockerfile = (ROOT / "addon" / "Dockerfile").read_text("utf-8")
    label = re.search(r'org\.opencontainers\.image\.licenses="([^"]+)"', dockerfile)
    assert label is not None
    assert label.group(1) == " AND ".join([CODE_LICENCE, *sorted(copyleft)])


def test_the_docs_tell_the_same_story() -> None:
    docs = (ROOT / "addon" / "DOCS.md").read_text("utf-8")
    section = docs.split("## Licence and credits", 1)[1]
    assert f"code is {CODE_LICENCE}" in section
    assert "homeassistant-api` (GPL-3.0-or-later)" in section
    readme = (ROOT / "README.md").read_text("utf-8")
    assert "[Apache-2.0](LICENSE)" in readme
