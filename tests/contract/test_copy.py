"""The integration's copy of the contract is the app's, byte for byte, and can be one: it
imports only itself and the standard library (D67). One test for what five guarded."""

from __future__ import annotations

import ast
from pathlib import Path
import sys

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "addon" / "botpsy_agent" / "contract"
COPY = ROOT / "custom_components" / "botpsy" / "contract"


def files(folder: Path) -> dict[str, bytes]:
    """Every file of `folder` but Python's caches, by its path inside it."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_the_integrations_contract_is_the_apps_byte_for_byte() -> None:
    source, copy = files(SOURCE), files(COPY)
    assert source, SOURCE
    assert sorted(copy) == sorted(source), "run: make contract"
    differing = [name for name in source if copy[name] != source[name]]
    assert differing == [], "run: make contract"


def test_the_contract_imports_only_itself_and_the_standard_library() -> None:
    wrong = []
    for path in sorted(SOURCE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            top = {name.split(".")[0] for name in names}
            wrong += [f"{path.name}: {t}" for t in top - sys.stdlib_module_names - {"__future__"}]
    assert wrong == []
