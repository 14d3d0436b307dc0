"""GBNF grammars built from the typed tool schemas, in the model's own tool-call format.

The schemas handed in are already narrowed to one principal (tool list, entity-id enums), so
a forbidden tool or entity cannot even be generated. The grammar fixes the argument order
(schema order), bounds every string and number, and gives a targeted tool exactly one target:
`entity_id`, or one group field (area, floor, device, label) that `domain` may narrow. So a
call can never name a light *and* its area *and* its floor (their union would be every light
on the floor). Read tools may also name a bare `domain` ("which lights are on?"). Values the
grammar cannot express exactly (float bounds) are still checked by pydantic after generation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
import json
import math
import re
from typing import Any

from botpsy_agent.llm.model_info import ToolFormat

TARGET_FIELDS = ("entity_id", "area_id", "floor_id", "device_id", "label_id", "domain")
GROUP_FIELDS = ("area_id", "floor_id", "device_id", "label_id")
"""Target fields naming a group of entities, which `domain` may narrow."""
MAX_CALLS_PER_TURN = 3
MAX_ANSWER_CHARS = 16
"""A later step's words end the turn and are never spoken (the answer is said from what ran,
agent/core.py): a few characters say "done" as well as a paragraph, which cost the real
0.5B 151 sampled tokens, 5.5 s, for dev too-dark-kitchen."""
MAX_ARRAY_ITEMS = 6  # more targets than this in one call: name an area or floor instead
SHORT_TEXT_CHARS = 120
WORDS_KEY = "x-words"
"""A string field's allowed words (the request's own, see agent/narrowing.py): its text is
then those words and nothing else."""
MAX_TEXT_WORDS = 40
LONG_TEXT_CHARS = 300


class Mode(StrEnum):
    AUTO = "auto"  # one to three tool calls, or a plain-text answer
    REQUIRED = "required"  # tool calls only
    FORCED = "forced"  # exactly one call of one named tool (tests, benchmarks)


@dataclass(frozen=True)
class Grammar:
    text: str
    tools: tuple[str, ...]
    mode: Mode


def gbnf_literal(text: str) -> str:
    """A GBNF string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _rule_name(*parts: str) -> str:
    return "-".join(re.sub(r"[^a-zA-Z0-9]+", "-", p).strip("-").lower() for p in parts if p)


class _Rules:
    """An ordered set of named rules; identical bodies share one name."""

    def __init__(self) -> None:
        self.rules: dict[str, str] = {}
        self._by_body: dict[str, str] = {}

    def add(self, name: str, body: str) -> str:
        if (existing := self._by_body.get(body)) is not None:
            return existing
        base, n = name, 2
        while name in self.rules:
            name, n = f"{base}-{n}", n + 1
        self.rules[name] = body
        self._by_body[body] = name
        return name

    def render(self) -> str:
        return "\n".join(f"{name} ::= {body}" for name, body in self.rules.items()) + "\n"


# --- numbers -------------------------------------------------------------------------------


def _digit_ranges(lo: str, hi: str) -> list[str]:
    """Alternatives matching the equal-length digit strings from lo to hi."""
    if not lo:
        return [""]
    rest = len(lo) - 1
    if lo[0] == hi[0]:
        return [f'"{lo[0]}" {tail}'.strip() for tail in _digit_ranges(lo[1:], hi[1:])]
    if lo[1:] == "0" * rest and hi[1:] == "9" * rest:
        return [(f"[{lo[0]}-{hi[0]}]" + " [0-9]" * rest).strip()]
    out = [f'"{lo[0]}" {tail}'.strip() for tail in _digit_ranges(lo[1:], "9" * rest)]
    if int(hi[0]) - int(lo[0]) > 1:
        out.append((f"[{int(lo[0]) + 1}-{int(hi[0]) - 1}]" + " [0-9]" * rest).strip())
    out += [f'"{hi[0]}" {tail}'.strip() for tail in _digit_ranges("0" * rest, hi[1:])]
    return out


def _natural_range(lo: int, hi: int) -> list[str]:
    """Alternatives for the integers lo..hi (0 <= lo <= hi), without leading zeros."""
    out: list[str] = []
    for digits in range(len(str(lo)), len(str(hi)) + 1):
        low = max(lo, 10 ** (digits - 1) if digits > 1 else 0)
        high = min(hi, 10**digits - 1)
        if low <= high:
            out += _digit_ranges(str(low), str(high))
    return out


def integer_range(lo: int, hi: int) -> str:
    """A GBNF expression for the integers lo..hi (either may be negative)."""
    alternatives: list[str] = []
    if lo < 0:
        negatives = _natural_range(max(1, -hi) if hi < 0 else 1, -lo)
        alternatives += [f'"-" {alt}' for alt in negatives]
    if hi >= 0:
        alternatives += _natural_range(max(lo, 0), hi)
    return "(" + " | ".join(f"({a})" for a in alternatives) + ")"


def number_range(lo: float | None, hi: float | None) -> str:
    """Decimal numbers (up to two decimals) within whole-number bounds, bounds included."""
    if lo is None or hi is None:
        return '"-"? [0-9]{1,7} ("." [0-9]{1,2})?'
    low, high = math.ceil(lo), math.floor(hi)
    decimals = '("." [0-9]{1,2})?'
    alternatives: list[str] = []
    if high >= 0:
        if high - 1 >= max(low, 0):
            alternatives.append(f"{integer_range(max(low, 0), high - 1)} {decimals}")
        alternatives.append(f'{gbnf_literal(str(high))} (".0")?')
    if low < 0:
        # Below zero the decimals grow the magnitude: only whole numbers at the low bound.
        if -low - 1 >= 1:
            alternatives.append(f'"-" {integer_range(1, -low - 1)} {decimals}')
        alternatives.append('"-0." [1-9]')
        alternatives.append(f'{gbnf_literal(str(low))} (".0")?')
    return " | ".join(f"({a})" for a in alternatives)


# --- strings ---------------------------------------------------------------------------------

# A real calendar date: months have their own lengths; February stops at the 28th (the 29th
# of a leap year is the one valid date the grammar cannot say).
_DATE = (
    '"20" [2-9] [0-9] "-" ('
    '("0" [13578] | "1" [02]) "-" ("0" [1-9] | [12] [0-9] | "3" [01]) | '
    '("0" [469] | "11") "-" ("0" [1-9] | [12] [0-9] | "30") | '
    '"02-" ("0" [1-9] | "1" [0-9] | "2" [0-8]))'
)
KNOWN_PATTERNS = {
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$": (
        f'{_DATE} "T" ([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9]'
    ),
    r"^\d{4}-\d{2}-\d{2}$": _DATE,
    r"^\d{1,2}:[0-5]\d:[0-5]\d$": '[0-9] [0-9]? ":" [0-5] [0-9] ":" [0-5] [0-9]',
    r"^[0-9A-Za-z]{1,16}$": "[0-9A-Za-z]{1,16}",
    r"^[^\s<>]+$": '[^\\x00-\\x20<>"\\\\]{1,80}',
    r"^[a-z0-9_]+\.[a-z0-9_]+$": '[a-z] [a-z0-9_]{0,29} "." [a-z0-9_]{1,40}',
    r"^[a-z_]{2,40}$": "[a-z_] [a-z_]{1,39}",
}
DOMAIN_ENTITY_PATTERN = re.compile(r"^\^([a-z_]+)\\\.\[a-z0-9_\]\+\$$")
"""Matches the schema pattern of ids of one domain, e.g. ^calendar\\.[a-z0-9_]+$."""


def _xml_text(limit: int) -> str:
    # Raw text up to the closing "\n</parameter>": no '<', no control characters.
    return f"[^<\\x00-\\x1f] [^<\\x00-\\x1f]{{0,{limit - 1}}}"


def _json_text(limit: int) -> str:
    # A JSON string body: no quotes, backslashes, control characters or '<'.
    return f'"\\"" [^"\\\\<\\x00-\\x1f]{{1,{limit}}} "\\""'


# --- the builder -----------------------------------------------------------------------------


class GrammarBuilder:
    """Builds one grammar for a set of (narrowed) tool schemas."""

    def __init__(self, tool_format: ToolFormat) -> None:
        self.format = tool_format
        self.rules = _Rules()

    def build(self, schemas: Sequence[Mapping[str, Any]], mode: Mode = Mode.AUTO) -> Grammar:
        if not schemas:
            raise ValueError("a grammar needs at least one tool")
        if mode is Mode.FORCED and len(schemas) != 1:
            raise ValueError("a forced grammar offers exactly one tool")
        functions = [self._function(schema) for schema in schemas]
        call = self.rules.add("tool-call", self._call_wrapper(" | ".join(functions)))
        repeat = f"({gbnf_literal(chr(10))} {call}){{0,{MAX_CALLS_PER_TURN - 1}}}"
        calls = call if mode is Mode.FORCED else f"{call} {repeat}"
        if mode is Mode.AUTO:
            # No "<" and no "{" in an answer: a call written as text (tagless JSON, which
            # the parser still reads as a call) would escape the tools' own rules.
            answer = self.rules.add("answer", f"[^<{{\\n] [^<{{]{{0,{MAX_ANSWER_CHARS - 1}}}")
            root = f"({calls}) | {answer}"
        else:
            root = calls
        text = f"root ::= {root}\n" + self.rules.render()
        return Grammar(text, tuple(s["name"] for s in schemas), mode)

    def _call_wrapper(self, functions: str) -> str:
        return (
            f'"<tool_call>\\n" ({functions}) "\\n</tool_call>"'
            if self.format is ToolFormat.HERMES_JSON
            else f'"<tool_call>\\n" ({functions}) "</tool_call>"'
        )

    def _function(self, schema: Mapping[str, Any]) -> str:
        """All argument lists the tool accepts: one alternative per shape and choice."""
        name: str = schema["name"]
        parameters = schema["parameters"]
        properties: Mapping[str, Any] = parameters.get("properties", {})
        required = list(parameters.get("required", ()))
        targets = [k for k in properties if k in TARGET_FIELDS and k not in required]
        separator = "" if self.format is ToolFormat.QWEN_XML else '", "'
        target = self._target(name, properties, targets, schema.get("access") == "read")
        shapes = schema.get("x-shapes") or [default_shape(properties, required, targets)]
        variants = []
        for number, shape in enumerate(shapes):
            for choice_number, chosen in enumerate(expand_shape(shape, properties)):
                fields: dict[str, tuple[bool, list[str] | None]] = dict.fromkeys(
                    required, (True, None)
                )
                fields.update(chosen)
                items = [
                    (
                        key,
                        self._argument(name, key, properties[key], fields[key][1]),
                        fields[key][0],
                    )
                    for key in properties
                    if key in fields and key not in targets
                ]
                label = f"{name}-v{number}-{choice_number}"
                rest = self._sequence(label, items, separator, led=target is not None)
                variants.append(rest if target is None else f"{target} {rest}".replace(' ""', ""))
        arguments = " | ".join(f"({v})" for v in variants)
        if self.format is ToolFormat.QWEN_XML:
            open_tag = gbnf_literal(f"<function={name}>\n")
            return self.rules.add(
                _rule_name("fn", name),
                f"{open_tag} ({arguments}) {gbnf_literal('</function>' + chr(10))}",
            )
        prefix = gbnf_literal('{"name": ' + json.dumps(name) + ', "arguments": {')
        return self.rules.add(_rule_name("fn", name), f'{prefix} ({arguments}) "}}}}"')

    def _target(
        self, tool: str, properties: Mapping[str, Any], targets: list[str], is_read: bool
    ) -> str | None:
        """Exactly one target: entity ids, or one group (area, floor, device, label) that a
        domain may narrow; a read may also name a bare domain. None for untargeted tools."""
        if not targets:
            return None
        separator = "" if self.format is ToolFormat.QWEN_XML else '", "'

        def argument(key: str) -> tuple[str, str, bool]:
            return key, self._argument(tool, key, properties[key], None), True

        choices: list[list[tuple[str, str, bool]]] = []
        if "entity_id" in targets:
            choices.append([argument("entity_id")])
        for group in (g for g in GROUP_FIELDS if g in targets):
            narrowing = [(*argument("domain")[:2], False)] if "domain" in targets else []
            choices.append([argument(group), *narrowing])
        if "domain" in targets and (is_read or not choices):
            choices.append([argument("domain")])
        bodies = [self._sequence(f"{tool}-target", items, separator) for items in choices]
        return self.rules.add(_rule_name(tool, "target"), " | ".join(f"({b})" for b in bodies))

    def _sequence(
        self,
        tool: str,
        items: list[tuple[str, str, bool]],
        separator: str,
        *,
        led: bool = False,
    ) -> str:
        """Arguments in fixed order; optional ones may be absent; separators only between.

        Rule (i, led): items from i on, `led` if something came before (so the next one
        needs the separator). Returns '""' when there is nothing to say.
        """
        memo: dict[tuple[int, bool], str] = {}

        def seq(i: int, led: bool) -> str:
            """A rule name, or "" for nothing more to say."""
            key = (i, led)
            if key in memo:
                return memo[key]
            if i == len(items):
                memo[key] = ""
                return ""
            _field, rule, required = items[i]
            lead = f"{separator} " if (led and separator) else ""
            present = f"{lead}{rule} {seq(i + 1, True)}".strip()
            if required:
                body = present
            elif (skipped := seq(i + 1, led)) == "":
                body = f"({present})?"
            else:
                body = f"({present}) | {skipped}"
            body = self.rules.add(_rule_name(tool, "args", str(i), str(int(led))), body)
            memo[key] = body
            return body

        return seq(0, led) or '""'

    def _argument(
        self, tool: str, key: str, spec: Mapping[str, Any], only: list[str] | None
    ) -> str:
        if only is not None:
            spec = {**spec, "enum": only}
        value = self._value(tool, key, spec, json_strings=self.format is ToolFormat.HERMES_JSON)
        if self.format is ToolFormat.QWEN_XML:
            open_tag = gbnf_literal(f"<parameter={key}>\n")
            close_tag = gbnf_literal("\n</parameter>\n")
            return self.rules.add(_rule_name("arg", tool, key), f"{open_tag} {value} {close_tag}")
        return self.rules.add(
            _rule_name("arg", tool, key), f"{gbnf_literal(json.dumps(key) + ': ')} {value}"
        )

    def _value(self, tool: str, key: str, spec: Mapping[str, Any], *, json_strings: bool) -> str:
        kind = spec.get("type")
        name = _rule_name("val", tool, key)
        if "enum" in spec:
            options = [
                gbnf_literal(json.dumps(v) if (json_strings or not isinstance(v, str)) else v)
                for v in spec["enum"]
            ]
            return self.rules.add(name, " | ".join(options))
        if kind == "string":
            body = (
                self._words(tool, key, spec, quoted=json_strings)
                if spec.get(WORDS_KEY)
                else self._string(spec, quoted=json_strings)
            )
            return self.rules.add(name, body)
        if kind == "integer":
            lo, hi = spec.get("minimum"), spec.get("maximum")
            body = (
                integer_range(int(lo), int(hi))
                if lo is not None and hi is not None
                else '"-"? [0-9]{1,9}'
            )
            return self.rules.add(name, body)
        if kind == "number":
            return self.rules.add(name, number_range(spec.get("minimum"), spec.get("maximum")))
        if kind == "boolean":
            return self.rules.add(name, '"true" | "false"')
        if kind == "array":
            item = self._value(tool, f"{key}-item", spec.get("items", {}), json_strings=True)
            most = min(int(spec.get("maxItems", MAX_ARRAY_ITEMS)), MAX_ARRAY_ITEMS)
            least = int(spec.get("minItems", 1))
            more = f'(", " {item}){{{max(least - 1, 0)},{most - 1}}}'
            return self.rules.add(name, f'"[" {item} {more} "]"')
        raise ValueError(f"{tool}.{key}: no grammar for schema type {kind!r}")

    def _words(self, tool: str, key: str, spec: Mapping[str, Any], *, quoted: bool) -> str:
        """Text made only of the given words, one space between: what the user said."""
        words: list[str] = list(dict.fromkeys(str(w) for w in spec[WORDS_KEY]))
        literal = (lambda w: gbnf_literal(json.dumps(w)[1:-1])) if quoted else gbnf_literal
        word = self.rules.add(_rule_name("word", tool, key), " | ".join(map(literal, words)))
        most = most_words(words)
        body = f'{word} (" " {word}){{0,{most - 1}}}'
        return f'"\\"" {body} "\\""' if quoted else body

    @staticmethod
    def _string(spec: Mapping[str, Any], *, quoted: bool) -> str:
        pattern = spec.get("pattern")
        limit = int(spec.get("maxLength", LONG_TEXT_CHARS))
        limit = min(limit, LONG_TEXT_CHARS if limit > SHORT_TEXT_CHARS * 2 else SHORT_TEXT_CHARS)
        body: str | None = None
        if pattern in KNOWN_PATTERNS:
            body = KNOWN_PATTERNS[pattern]
        elif pattern is not None and (match := DOMAIN_ENTITY_PATTERN.match(pattern)):
            body = f'"{match.group(1)}." [a-z0-9_]{{1,40}}'
        elif pattern is not None and pattern.startswith("^[A-Za-z0-9_\\-]"):
            body = "[A-Za-z0-9_-]{1,40}"
        elif pattern is not None:
            raise ValueError(f"no grammar for the string pattern {pattern!r}")
        if body is not None:
            return f'"\\"" {body} "\\""' if quoted else body
        return _json_text(limit) if quoted else _xml_text(limit)


def most_words(words: Sequence[str]) -> int:
    """The most words the grammar lets a text made of `words` hold."""
    return min(max(len(set(words)) + 4, 1), MAX_TEXT_WORDS)


def default_shape(properties: Mapping[str, Any], required: list[str], targets: list[str]) -> str:
    """Required fields plus every other field as optional."""
    items = [f"{k}?" for k in properties if k not in required and k not in targets]
    return ", ".join([*required, *items])


def expand_shape(
    shape: str, properties: Mapping[str, Any]
) -> list[dict[str, tuple[bool, list[str] | None]]]:
    """Every concrete field choice a shape allows: field -> (required, allowed values)."""
    choices: list[dict[str, tuple[bool, list[str] | None]]] = [{}]
    for raw in (part.strip() for part in shape.split(",")):
        if not raw:
            continue
        optional = raw.endswith("?")
        item = raw.removesuffix("?")
        if "=" in item:
            field, values = item.split("=", 1)
            options: list[dict[str, tuple[bool, list[str] | None]]] = [
                {field: (True, values.split("|"))}
            ]
        elif "|" in item:
            # An optional choice may name fields the offer narrowed away (no entity of the
            # principal's has them): those are simply not offered.
            fields = [f for f in item.split("|") if f in properties or not optional]
            options = [{field: (True, None)} for field in fields]
            if optional:
                options.append({})
        elif optional and item not in properties:
            options = [{}]  # narrowed away, as above
        else:
            options = [{item: (not optional, None)}]
        for option in options:
            unknown = set(option) - set(properties)
            if unknown:
                raise ValueError(f"shape {shape!r} names unknown field {', '.join(unknown)}")
        choices = [{**done, **option} for done in choices for option in options]
    return choices


def build_grammar(
    schemas: Sequence[Mapping[str, Any]], tool_format: ToolFormat, mode: Mode = Mode.AUTO
) -> Grammar:
    """The grammar for these (already narrowed) tool schemas."""
    return GrammarBuilder(tool_format).build(schemas, mode)
