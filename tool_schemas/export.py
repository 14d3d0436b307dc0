"""Write every tool's JSON Schema to tool_schemas/json/<tool>.json.

Usage: python -m tool_schemas.export [--check]
A test runs `--check`: a stale export fails it.
"""

from __future__ import annotations

import argparse
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


def stale_files() -> list[str]:
    """Exports that are missing, different or no longer belong to a tool."""
    wanted = rendered()
    stale = [
        name
        for name, text in wanted.items()
        if not (JSON_DIR / name).exists() or (JSON_DIR / name).read_text() != text
    ]
    tool_files = {p.name for p in JSON_DIR.glob("*.json")} if JSON_DIR.exists() else set()
    stale += sorted(n for n in tool_files - set(wanted) if not n.startswith("mqtt_"))
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if an export is stale")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_files()
        for name in stale:
            print(f"stale: tool_schemas/json/{name}", file=sys.stderr)
        return 1 if stale else 0
    JSON_DIR.mkdir(exist_ok=True)
    for name in stale_files():
        if name not in rendered():
            (JSON_DIR / name).unlink()
    for name, text in rendered().items():
        (JSON_DIR / name).write_text(text)
    print(f"wrote {len(TOOLS)} tool schemas to {JSON_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
