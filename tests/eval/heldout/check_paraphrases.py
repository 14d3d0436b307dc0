"""Check the held-out data in this folder against the dev cases (tests/eval/cases).

Run: PYTHONPATH=addon:. python3 tests/eval/heldout/check_paraphrases.py
(or script/run python tests/eval/heldout/check_paraphrases.py). Exit status 1 on any error.

paraphrases.yaml: every model-path case (a turn whose expected path is neither fast_path nor
confirmation) has exactly 3 paraphrases, each with the case's number of turns; none equals the
original or another paraphrase (case-insensitive, whole conversation); and, turn by turn, every
checked word of the original turn (message `contains`, event `summary_contains`, item
`summary`, `answer_contains`, a number, a device/room/floor/alias name of the demo home, a
person, a seeded event or list item) that appears in the original turn appears in the
paraphrase's turn too. A name of the home that a paraphrase adds is reported as a warning.

no_tool.yaml: every case parses as a normal case, has an id starting `heldout-no-tool-`, no id
clashes with the dev cases, and it expects a refusal or a question and names no change.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
import re
import sys

import yaml

from tests.eval.cases import Case, CaseError, load_cases, parse_case

HERE = Path(__file__).parent
ROOT = HERE.parents[2]
HOME_PY = ROOT / "demo/config/custom_components/demo_home/home.py"

NUMBER_WORDS = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "fifteen": "15", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50",
    "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90", "hundred": "100",
}  # fmt: skip
PEOPLE = ("Anna", "Sam")
SEEDED = ("Dentist", "Piano lesson", "Family dinner", "milk", "bread")
"""The demo's seeded calendar events and shopping-list items (the cases' comments name them)."""


def home_names() -> list[str]:
    """Every name a person may use for something in the demo home (home.py), lower case."""
    spec = importlib.util.spec_from_file_location("demo_home_devices", HOME_PY)
    assert spec and spec.loader
    home = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(home)
    names = {name for name, _area in home.placed_devices().values()}
    for name, _floor, aliases in home.AREAS.values():
        names |= {name, *aliases}
    for name, _level, aliases in home.FLOORS.values():
        names |= {name, *aliases}
    for aliases in home.ALIASES.values():
        names |= set(aliases)
    names |= set(PEOPLE) | set(SEEDED)
    return sorted({n.lower() for n in names}, key=len, reverse=True)


def has_word(term: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(term.lower())}(?!\w)", text.lower()) is not None


def numbers(text: str) -> set[str]:
    found = set(re.findall(r"\d+", text))
    found |= {NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", text.lower()) if w in NUMBER_WORDS}
    return found


def names_in(text: str, names: list[str]) -> set[str]:
    """The home's names in a text; a longer name hides the shorter ones inside it."""
    found: set[str] = set()
    rest = text.lower()
    for name in names:  # longest first
        if has_word(name, rest):
            found.add(name)
            rest = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", " ", rest)
    return found


def case_terms(case: Case) -> list[str]:
    terms = [m.contains for m in case.messages]
    terms += [e.summary_contains for e in case.events]
    terms += [i.summary for i in case.items]
    terms += list(case.answer_contains)
    return terms


def check_paraphrases(cases: list[Case], errors: list[str], warnings: list[str]) -> tuple[int, int]:
    raw = yaml.safe_load((HERE / "paraphrases.yaml").read_text(encoding="utf-8")) or {}
    if not isinstance(raw, dict):
        errors.append("paraphrases.yaml: a mapping from case id to 3 paraphrases")
        return 0, 0
    model = {c.id: c for c in cases if not c.deterministic}
    for extra in sorted(set(raw) - set(model)):
        errors.append(f"{extra}: not a model-path case of tests/eval/cases")
    names = home_names()
    count = 0
    for case_id, case in model.items():
        entries = raw.get(case_id)
        if entries is None:
            errors.append(f"{case_id}: no paraphrases")
            continue
        if not isinstance(entries, list) or len(entries) != 3:
            errors.append(f"{case_id}: exactly 3 paraphrases, not {len(entries or [])}")
            continue
        original = [t.say for t in case.turns]
        seen = {tuple(s.strip().lower() for s in original)}
        for n, entry in enumerate(entries, 1):
            where = f"{case_id} #{n}"
            if not isinstance(entry, list) or not all(
                isinstance(s, str) and s.strip() for s in entry
            ):
                errors.append(f"{where}: a list of texts, one per turn")
                continue
            if len(entry) != len(original):
                errors.append(f"{where}: {len(entry)} turns, the case has {len(original)}")
                continue
            count += 1
            key = tuple(s.strip().lower() for s in entry)
            if key in seen:
                errors.append(f"{where}: equals the original or another paraphrase")
            seen.add(key)
            for turn, (said, new) in enumerate(zip(original, entry, strict=True), 1):
                at = f"{where} turn {turn}"
                for term in case_terms(case):
                    if has_word(term, said) and not has_word(term, new):
                        errors.append(f"{at}: {term!r} is in the original turn, not here: {new!r}")
                missing = numbers(said) - numbers(new)
                if missing:
                    errors.append(f"{at}: number(s) {sorted(missing)} missing: {new!r}")
                before, after = names_in(said, names), names_in(new, names)
                for name in sorted(before - after):
                    errors.append(f"{at}: name {name!r} of the original missing: {new!r}")
                for name in sorted(after - before):
                    warnings.append(f"{at}: adds the name {name!r}: {new!r}")
    return len(model), count


def check_no_tool(cases: list[Case], errors: list[str]) -> int:
    path = HERE / "no_tool.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    if not isinstance(raw, list):
        errors.append("no_tool.yaml: a YAML list of cases")
        return 0
    dev_ids = {c.id for c in cases}
    ids: list[str] = []
    for item in raw:
        try:
            case = parse_case(item, path.name)
        except CaseError as error:
            errors.append(str(error))
            continue
        ids.append(case.id)
        if not case.id.startswith("heldout-no-tool-"):
            errors.append(f"{case.id}: ids start heldout-no-tool-")
        if case.id in dev_ids:
            errors.append(f"{case.id}: the id of a dev case")
        if case.changes or case.events or case.items or case.messages or not case.no_change_because:
            errors.append(f"{case.id}: a no-tool case names no change and says why")
        if case.deterministic or not all(
            t.statuses and not t.statuses & {"done"} for t in case.turns
        ):
            errors.append(f"{case.id}: every turn expects a refusal or a question, not done")
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        errors.append(f"{dup}: duplicate id")
    return len(ids)


def main() -> int:
    cases = load_cases()
    errors: list[str] = []
    warnings: list[str] = []
    n_cases, n_paraphrases = check_paraphrases(cases, errors, warnings)
    n_no_tool = check_no_tool(cases, errors)
    for warning in warnings:
        print(f"warning: {warning}")
    for error in errors:
        print(f"error: {error}")
    print(
        f"{n_cases} model-path cases, {n_paraphrases} paraphrases, {n_no_tool} no-tool cases, "
        f"{len(errors)} errors, {len(warnings)} warnings"
    )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
