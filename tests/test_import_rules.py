"""The import rules of docs/architecture.md, read from the code: each part of the app imports
only the parts below it, the agent sees the model through one module, and the integration
imports nothing of the app."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "addon" / "botpsy_agent"

MAY_IMPORT: dict[str, set[str]] = {
    "contract": set(),  # shared with the integration: the standard library only (D67)
    "home": set(),
    "policy": {"home"},
    "words": {"home"},
    "llm": set(),
    "ha": {"home"},
    "weights": set(),
    "agent": {"contract", "home", "policy", "words", "ha", "llm"},
    "audit": {"agent"},
    "mqtt": {"contract", "agent", "policy", "audit"},
    "link": {"contract", "mqtt", "policy", "ha"},
    "web": {"home", "policy", "ha", "audit", "link"},
    "app": {
        "contract",
        "home",
        "policy",
        "words",
        "llm",
        "ha",
        "weights",
        "agent",
        "audit",
        "mqtt",
        "link",
        "web",
    },
    "__main__": {"app", "audit", "weights"},
}
"""Which parts each part may import (beyond itself and the shared modules below)."""

SHARED = {"botpsy_agent.agent.protocol"}
"""The vocabulary every part may import: the request/response types."""

MAY_ALSO_IMPORT: dict[str, set[str]] = {}
"""Single modules a part may import from a part above it, each with its reason."""

MODEL_INTERFACE = "botpsy_agent.llm.planning"


def imports(folder: Path) -> Iterator[tuple[Path, str]]:
    """Every `from X import` / `import X` of botpsy_agent in the files under `folder`."""
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                package = APP.parent.joinpath(*node.module.split("."))
                for alias in node.names:  # `from a.b import c`: c may be a module of a.b
                    is_module = (package / f"{alias.name}.py").exists()
                    yield path, f"{node.module}.{alias.name}" if is_module else node.module
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    yield path, alias.name


def part_of(path: Path) -> str:
    relative = path.relative_to(APP).parts
    return relative[0] if len(relative) > 1 else relative[0].removesuffix(".py")


def test_each_part_imports_only_the_parts_below_it() -> None:
    wrong = []
    for path, module in imports(APP):
        if not module.startswith("botpsy_agent.") or module in SHARED:
            continue
        source, target = part_of(path), module.split(".")[1]
        if module in MAY_ALSO_IMPORT.get(source, set()):
            continue
        if target != source and target not in MAY_IMPORT[source]:
            wrong.append(f"{path.relative_to(ROOT)}: {module}")
    assert wrong == []
    assert set(MAY_IMPORT) == {part_of(p) for p in APP.glob("*") if p.name != "__init__.py"} - {
        "__pycache__"
    }


def test_the_agent_sees_the_model_through_one_module() -> None:
    used = {module for _, module in imports(APP / "agent") if module.startswith("botpsy_agent.llm")}
    assert used == {MODEL_INTERFACE}


def test_the_root_holds_only_the_package_and_its_entry_point() -> None:
    assert sorted(p.name for p in APP.glob("*.py")) == ["__init__.py", "__main__.py"]


def test_the_integration_imports_nothing_of_the_app() -> None:
    used = {m for _, m in imports(ROOT / "custom_components") if m.startswith("botpsy_agent")}
    assert used == set()
