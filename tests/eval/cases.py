"""The evaluation cases (tests/eval/cases/*.yaml), read and checked.

A case: who speaks, what they say turn by turn with what each answer must be, and how the
home must differ afterwards (`changes`: entity -> expected state/attributes; `{}` means
"may change, not checked"). Every other entity must not change at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

CASES = Path(__file__).parent / "cases"
DETERMINISTIC_PATHS = frozenset({"fast_path", "confirmation"})


@dataclass(frozen=True)
class Turn:
    say: str
    status: str | None = None
    path: str | None = None
    speech: str | None = None
    """A fragment the answer's speech must contain."""


@dataclass(frozen=True)
class Case:
    id: str
    category: str
    user: str
    turns: tuple[Turn, ...]
    changes: dict[str, dict[str, Any]] = field(default_factory=dict)
    source: str = ""

    @property
    def deterministic(self) -> bool:
        """Every turn is answered without the model: must pass whatever the model is."""
        return all(t.path in DETERMINISTIC_PATHS for t in self.turns)

    @property
    def expects_refusal(self) -> bool:
        return any(t.status == "refused" for t in self.turns)


def load_cases(folder: Path = CASES) -> list[Case]:
    cases: list[Case] = []
    for path in sorted(folder.glob("*.yaml")):
        for raw in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            turns = tuple(Turn(t["say"], **dict(t.get("expect", {}))) for t in raw["turns"])
            if raw["user"] not in {"admin", "child"}:
                raise ValueError(f"{path.name}: {raw['id']}: user must be admin or child")
            cases.append(
                Case(
                    raw["id"],
                    raw["category"],
                    raw["user"],
                    turns,
                    raw.get("changes") or {},
                    path.name,
                )
            )
    ids = [c.id for c in cases]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise ValueError(f"duplicate case ids: {', '.join(sorted(duplicates))}")
    return cases
