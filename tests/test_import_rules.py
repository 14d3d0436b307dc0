"""The import rules of docs/architecture.md, read from the code: each part of the app imports
only the parts below it, and only through their faces (each part's `__init__`), the agent
sees of the model only `llm/planning.py`, and the integration imports nothing of the app."""

from __future__ import annotations

import ast
from collections.abc import Iterator
import importlib
from pathlib import Path
import pkgutil
from types import ModuleType

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

PAST_THE_FACE: dict[str, tuple[set[str] | None, str]] = {
    "botpsy_agent.agent.protocol": (
        None,
        "the shared vocabulary (the request, the response, `ErrorInfo`): the parts below the "
        "agent import it, so it is read from its own module, which loads nothing of the loop",
    ),
    "botpsy_agent.llm.planning": (
        {"agent"},
        "the agent's one view of the model (the offer, the plan request, the planner's turn, "
        "the `Planner` protocol, `PlanError`), apart from the `llm` face the app reads",
    ),
}
"""Modules a part may import by name instead of through their part's face: which parts may
(None: any), and why. Everything else crosses a part's border through its `__init__`."""

MODEL_INTERFACE = "botpsy_agent.llm.planning"
"""All the agent may read of the model."""


def imports(folder: Path) -> Iterator[tuple[Path, str]]:
    """Every `from X import` / `import X` of botpsy_agent in the files under `folder`."""
    for path, module, _ in names_imported(folder):
        yield path, module


def names_imported(folder: Path) -> Iterator[tuple[Path, str, str | None]]:
    """(file, module, name) for every import under `folder`: `from a.b import c` is
    (a.b, c), or (a.b.c, None) where c is a module of a.b that `a.b`'s face does not name;
    `import a.b` is (a.b, None)."""
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                package = APP.parent.joinpath(*node.module.split("."))
                for alias in node.names:  # `from a.b import c`: c may be a module of a.b
                    is_module = (package / f"{alias.name}.py").exists()
                    if is_module and alias.name not in face_names(node.module):
                        yield path, f"{node.module}.{alias.name}", None
                    else:
                        yield path, node.module, alias.name
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    yield path, alias.name, None


def face_names(module: str) -> set[str]:
    """The `__all__` of a package's `__init__` (empty for a module or a package without)."""
    if not APP.parent.joinpath(*module.split("."), "__init__.py").exists():
        return set()
    return set(getattr(importlib.import_module(module), "__all__", ()))


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


def test_other_parts_are_reached_through_their_faces() -> None:
    """`from botpsy_agent.mqtt import X`, never `from botpsy_agent.mqtt.wire import X`: a
    part's inner modules are its own to move."""
    wrong = []
    for path, module, name in names_imported(APP):
        if not module.startswith("botpsy_agent."):
            continue
        source, target = part_of(path), module.split(".")[1]
        if module in PAST_THE_FACE and source in (PAST_THE_FACE[module][0] or {source}):
            continue
        if target == source:
            continue
        face = f"botpsy_agent.{target}"
        if module != face or name not in face_names(face):
            wrong.append(f"{path.relative_to(ROOT)}: {module} {name or ''}".rstrip())
    assert wrong == []


def test_a_part_imports_its_own_modules_not_its_face() -> None:
    """Inside a part, modules import each other by module: going through the part's own face
    would make the face's imports a cycle."""
    wrong = [
        f"{path.relative_to(ROOT)}: {module} {name}"
        for path, module, name in names_imported(APP)
        if name is not None
        and module == f"botpsy_agent.{part_of(path)}"
        and path.name != "__init__.py"
        and not (APP / part_of(path) / f"{name}.py").exists()
    ]
    assert wrong == []


def test_each_face_gives_what_it_names() -> None:
    """Every name of a face's `__all__` is what its module defines, also after every module
    of the part is loaded (a lazy face's name must not be one of its modules' names)."""
    for face in sorted(p.parent for p in APP.glob("*/__init__.py")):
        package = importlib.import_module(f"botpsy_agent.{face.name}")
        modules = [
            importlib.import_module(info.name)
            for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")
        ]
        for name in face_names(package.__name__):
            value = getattr(package, name)
            assert not isinstance(value, ModuleType) or value in modules, (face.name, name)
            assert any(getattr(m, name, None) is value for m in modules) or isinstance(
                value, ModuleType
            ), (face.name, name)


def test_the_agent_sees_the_model_through_one_module() -> None:
    used = {module for _, module in imports(APP / "agent") if module.startswith("botpsy_agent.llm")}
    assert used == {MODEL_INTERFACE}


def test_the_root_holds_only_the_package_and_its_entry_point() -> None:
    assert sorted(p.name for p in APP.glob("*.py")) == ["__init__.py", "__main__.py"]


def test_the_integration_imports_nothing_of_the_app() -> None:
    used = {m for _, m in imports(ROOT / "custom_components") if m.startswith("botpsy_agent")}
    assert used == set()


TWO_WAY: dict[frozenset[str], str] = {}
"""The package-level two-way imports left, each with its reason (issue 26: at most one; the
last, agent↔ha, went when the executor kept `HaError` and the agent came to name it)."""


def test_at_most_one_pair_of_parts_imports_each_other() -> None:
    """Counted from every import, the shared vocabulary's included: the layering above allows
    `agent/protocol.py` to everyone, so a new two-way pair could slip in through it."""
    arrows = {
        (part_of(path), module.split(".")[1])
        for path, module in imports(APP)
        if module.startswith("botpsy_agent.")
    }
    two_way = {frozenset(a) for a in arrows if a[0] != a[1] and (a[1], a[0]) in arrows}
    assert two_way == set(TWO_WAY)
    assert len(TWO_WAY) <= 1
