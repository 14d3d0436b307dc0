"""HA's templates narrowed to the ones a sentence can match, before hassil tries them.

hassil skips a template whose required words (`Sentence.get_required_clauses`: at least one
fragment of every clause) are missing from the sentence. It decides that per template, on
every call, after building each block's settings, and that loop over all of English's 479
blocks cost about 1 ms per call, as much as the matching itself (about 1.3 ms on the bench
house). The fragments never change, so this index finds the blocks with a template whose
clauses all hold, from one scan of the fragments, and hands hassil only those.

The index also reads a template's required list of the language's own ("{color}": one of
its values' words must be said), which hassil does not: the twelve templates that need no
word of their own ("[<set>] [<the>] {area} [color] [to] {color}") were tried on every
sentence. Lists the home fills per call (names, areas, floors) and ranges say nothing here.
A block is dropped only where no template of it can match, so the best match is the same,
found in the same order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from hassil import Intents
from hassil.expression import (
    Alternative,
    Expression,
    Group,
    ListReference,
    RuleReference,
    Sentence,
    TextChunk,
)
from hassil.intents import Intent, IntentData, SlotList, TextSlotList
from hassil.util import (
    CJK_WHITESPACE,
    PUNCTUATION_STR,
    normalize_for_matching,
    remove_skip_words,
)

type Clauses = tuple[frozenset[str], ...]
"""One template's required fragments: at least one of every clause is in a match."""

_PUNCTUATION = frozenset(PUNCTUATION_STR)
"""A word with any of these may be said without them (hassil drops them): it is no fragment."""
_DEEPEST = 24
"""How far rules and lists are followed into each other (a rule may name itself)."""


@dataclass(frozen=True)
class _Block:
    intent: str
    data: IntentData
    templates: tuple[Clauses, ...]
    """Each template's clauses; a block with a template of no clauses is always tried."""


class TemplateIndex:
    """One language's templates, indexed by the words they need."""

    def __init__(self, intents: Intents, per_call_lists: Iterable[str] = ()) -> None:
        """`per_call_lists`: the lists the caller passes with each sentence (the home's),
        which may differ from the language's lists of the same name."""
        self._intents = intents
        self._blocks: list[_Block] = []
        passed = frozenset(per_call_lists)
        for intent in intents.intents.values():
            for data in intent.data:
                # A block's rules and lists over the language's, as hassil reads them.
                rules = {**intents.expansion_rules, **data.expansion_rules}
                lists = {
                    name: slot_list
                    for name, slot_list in {**intents.slot_lists, **data.slot_lists}.items()
                    if name not in passed
                }
                templates = tuple(
                    tuple(_clauses(sentence.expression, rules, lists))
                    for sentence in data.sentences
                )
                self._blocks.append(_Block(intent.name, data, templates))
        # Each template is filed under the fragments of one clause, the rarest: a block is
        # a candidate when one of them is said, and kept when all its clauses hold.
        uses = Counter(f for b in self._blocks for t in b.templates for c in t for f in c)
        self._by_fragment: dict[str, set[int]] = {}
        self._always: set[int] = set()
        for number, block in enumerate(self._blocks):
            for template in block.templates:
                if not template:
                    self._always.add(number)
                    continue
                rarest = min(template, key=lambda c: (sum(uses[f] for f in c), sorted(c)))
                for fragment in rarest:
                    self._by_fragment.setdefault(fragment, set()).add(number)
        self._fragments = tuple(sorted(uses))

    def narrowed(self, text: str) -> Intents:
        """The language's intents with only the blocks that can match `text`, in their
        order, sharing its lists, rules and skip words. For matching without unmatched
        entities (hassil's default), where a list's value must be said."""
        said = self._haystack(text)
        present = {f for f in self._fragments if f in said}
        candidates = set(self._always)
        for fragment in present:
            candidates |= self._by_fragment.get(fragment, set())
        kept: dict[str, Intent] = {}
        for number in sorted(candidates):
            block = self._blocks[number]
            if any(all(not c.isdisjoint(present) for c in t) for t in block.templates):
                kept.setdefault(block.intent, Intent(block.intent)).data.append(block.data)
        intents = self._intents
        return Intents(
            intents.language,
            kept,
            slot_lists=intents.slot_lists,
            expansion_rules=intents.expansion_rules,
            skip_words=intents.skip_words,
            settings=intents.settings,
        )

    def _haystack(self, text: str) -> str:
        """The text hassil looks for fragments in: the sentence as it matches it, with its
        skip words and without (dropping one can join characters in whitespace-free
        languages), casefolded, as `hassil.recognize_all` builds it."""
        ignore_whitespace = self._intents.settings.ignore_whitespace
        with_skip_words = normalize_for_matching(text).text
        without = remove_skip_words(with_skip_words, self._intents.skip_words, ignore_whitespace)
        said = f"{with_skip_words.casefold()}\n{without.casefold()}"
        if ignore_whitespace:
            said += "\n" + CJK_WHITESPACE.sub("", said)
        return said


def _clauses(
    part: Expression, rules: dict[str, Sentence], lists: dict[str, SlotList], depth: int = 0
) -> set[frozenset[str]]:
    """What any text this part matches must contain, as clauses (at least one fragment of
    each): hassil's reading of a template's words, and a closed list read as a choice of its
    values. Fragments are casefolded words, as the haystack is."""
    clauses: set[frozenset[str]] = set()
    if depth > _DEEPEST:
        pass
    elif isinstance(part, TextChunk):
        clauses = {
            frozenset({w.casefold()}) for w in part.text.split() if _PUNCTUATION.isdisjoint(w)
        }
    elif isinstance(part, Alternative):
        if not part.is_optional:
            clauses = _one_of([_clauses(item, rules, lists, depth + 1) for item in part.items])
    elif isinstance(part, Group):  # a sequence or a permutation: every item is said
        clauses = {c for item in part.items for c in _clauses(item, rules, lists, depth + 1)}
    elif isinstance(part, RuleReference):
        if (rule := rules.get(part.rule_name)) is not None:
            clauses = _clauses(rule.expression, rules, lists, depth + 1)
    elif isinstance(part, ListReference):
        # A range, a wildcard or the home's list says nothing; hassil never matches an
        # empty value.
        slot_list = lists.get(part.list_name)
        if isinstance(slot_list, TextSlotList):
            values = [v.text_in for v in slot_list.values if not _empty(v.text_in)]
            clauses = _one_of([_clauses(value, rules, lists, depth + 1) for value in values])
    return clauses


def _empty(value: Expression) -> bool:
    return isinstance(value, TextChunk) and not value.text.strip()


def _one_of(choices: list[set[frozenset[str]]]) -> set[frozenset[str]]:
    """One of several parts is said: one clause, a fragment of any choice's smallest; none
    when a choice needs nothing."""
    if not choices or any(not choice for choice in choices):
        return set()
    merged: set[str] = set()
    for choice in choices:
        merged |= min(choice, key=lambda c: (len(c), sorted(c)))
    return {frozenset(merged)}
