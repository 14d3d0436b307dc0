"""Write every tool's JSON Schema to tool_schemas/json/<tool>.json.

Usage: python -m tool_schemas.export [--check]
A test runs `--check`: a stale export fails it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
import json
from pathlib import Path
import sys

from tool_schemas.catalog import TOOLS, catalog_version, tool_json_schema

JSON_DIR = Path(__file__).parent / "json"


def rendered() -> dict[str, str]:
    """File name -> content for every exported schema, plus the catalogue index."""
    files = {
        f"{name}.json": json.dumps(tool_json_schema(tool), indent=2, ensure_ascii=False) + "\n"
        for name, tool in TOOLS.items()
    }
    index = {"version": catalog_version(), "tools": sorted(TOOLS)}
    files["_catalog.json"] = json.dumps(index, indent=2) + "\n"
    return files


def differing(files: Mapping[str, str]) -> list[str]:
    """The names in `files` whose export in JSON_DIR is missing or different."""
    return [
        name
        for name, text in files.items()
        if not (JSON_DIR / name).exists() or (JSON_DIR / name).read_text() != text
    ]


def stale_files() -> list[str]:
    """Exports that are missing, different or no longer belong to a tool."""
    wanted = rendered()
    tool_files = {p.name for p in JSON_DIR.glob("*.json")} if JSON_DIR.exists() else set()
    obsolete = sorted(n for n in tool_files - set(wanted) if not n.startswith("mqtt_"))
    return differing(wanted) + obsolete


def export_command(
    argv: list[str] | None,
    description: str | None,
    files: Callable[[], dict[str, str]],
    stale: Callable[[], list[str]],
) -> int:
    """Write `files` to JSON_DIR (removing stale names it no longer makes), or with --check
    list what is stale and fail."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="fail if an export is stale")
    args = parser.parse_args(argv)
    if args.check:
        names = stale()
        for name in names:
            print(f"stale: tool_schemas/json/{name}", file=sys.stderr)
        return 1 if names else 0
    JSON_DIR.mkdir(exist_ok=True)
    wanted = files()
    for name in stale():
        if name not in wanted:
            (JSON_DIR / name).unlink()
    for name, text in wanted.items():
        (JSON_DIR / name).write_text(text)
    print(f"wrote {', '.join(sorted(wanted))} to {JSON_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(export_command(None, __doc__, rendered, stale_files))
