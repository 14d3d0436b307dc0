"""BotPsy agent: the app's service that turns words into permitted Home Assistant actions.

Each part (a folder here) shows the others its face, its `__init__`: what another part may
import from it is listed in its `__all__` (docs/architecture.md, "Import rules").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
import importlib
import sys

__version__ = "0.1.0"


def lazy_face(package: str, names: Mapping[str, str]) -> Callable[[str], object]:
    """The `__getattr__` of a face that imports nothing until a name is read (PEP 562): each
    of `names` comes from its module of `package` the first time it is asked for, then stays.

    For the parts whose modules must not load with their package: `agent` (the parts below it
    import its shared vocabulary, `agent/protocol.py`), `llm` (llama.cpp loads only where the
    app runs a model) and `app` (the container's health check stays light)."""

    def attribute(name: str) -> object:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return attribute
