"""Read a policy file: YAML -> validated schema -> compiled `Policy`.

Every problem is reported with the file, the line and the field, e.g.
`policy.yaml:14: users[0].rules[2].limit.temperature: min 30 is greater than max 18`.
An invalid file is never replaced by something more permissive.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from botpsy_agent.policy.model import Policy, Rule, RuleSet, UserEntry, glob_pattern
from botpsy_agent.policy.schema import PolicyFile, PrincipalSpec

type Path_ = tuple[str | int, ...]
MAX_VALUES = 100_000
"""Values a policy file may hold once its aliases are expanded (a real one has hundreds)."""
MAX_DEPTH = 64


@dataclass(frozen=True)
class PolicyProblem:
    line: int | None
    field: str
    message: str

    def render(self, source: str) -> str:
        where = f"{source}:{self.line}" if self.line is not None else source
        return (
            f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"
        )


class PolicyError(ValueError):
    """The policy file is invalid; `problems` holds one entry per finding."""

    def __init__(self, source: str, problems: list[PolicyProblem]) -> None:
        self.source = source
        self.problems = problems
        super().__init__("\n".join(p.render(source) for p in problems))


def load_policy(path: Path, known_user_ids: Iterable[str] | None = None) -> Policy:
    """Load and compile a policy file, or raise `PolicyError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise PolicyError(
            str(path), [PolicyProblem(None, "", f"cannot read: {err.strerror}")]
        ) from None
    except UnicodeDecodeError as err:
        raise PolicyError(
            str(path), [PolicyProblem(None, "", f"not UTF-8 text (byte {err.start})")]
        ) from None
    return parse_policy(text, str(path), known_user_ids)


def parse_policy(text: str, source: str, known_user_ids: Iterable[str] | None = None) -> Policy:
    """Parse policy YAML text; `known_user_ids` (HA's users) catches unknown principals."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as err:
        raise PolicyError(source, [_yaml_problem(err, "YAML syntax error")]) from None
    if root is None:
        raise PolicyError(source, [PolicyProblem(None, "", "the file is empty")])
    lines: dict[Path_, int] = {}
    try:
        data = _to_python(root, (), lines, yaml.SafeLoader(""))
    except yaml.YAMLError as err:  # e.g. an unknown tag (`!!python/…`) on a value
        raise PolicyError(source, [_yaml_problem(err, "YAML error")]) from None
    except _TooLarge:
        raise PolicyError(
            source,
            [PolicyProblem(None, "", f"more than {MAX_VALUES} values (aliases that repeat?)")],
        ) from None
    try:
        spec = PolicyFile.model_validate(data)
    except ValidationError as err:
        raise PolicyError(source, _problems(err, lines)) from None
    if known_user_ids is not None:
        known = set(known_user_ids)
        unknown = [
            PolicyProblem(
                lines.get(("users", i, "id")), f"users[{i}].id", f"no HA user has id {user.id}"
            )
            for i, user in enumerate(spec.users)
            if user.id not in known
        ]
        if unknown:
            raise PolicyError(source, unknown)
    return compile_policy(spec, source)


def compile_policy(spec: PolicyFile, source: str = "<memory>") -> Policy:
    def rules(section: str, principal: PrincipalSpec) -> tuple[Rule, ...]:
        return tuple(
            Rule.compile(rule, f"{section}.rules[{i}]") for i, rule in enumerate(principal.rules)
        )

    return Policy(
        confirm=frozenset(spec.confirm),
        household=glob_pattern(spec.household) if spec.household else None,
        groups={
            name: RuleSet(rules(f"groups.{name}", group), group.ignore_exposure)
            for name, group in spec.groups.items()
        },
        users={
            user.id: UserEntry(RuleSet(rules(f"users[{i}]", user)), user.inherit, user.name)
            for i, user in enumerate(spec.users)
        },
        mqtt={name: RuleSet(rules(f"mqtt.{name}", p)) for name, p in spec.mqtt.items()},
        anonymous=RuleSet(rules("anonymous", spec.anonymous)),
        source=source,
    )


class _TooLarge(Exception):
    """The document expands beyond `MAX_VALUES` (anchors and aliases can nest, or loop)."""


def _yaml_problem(err: yaml.YAMLError, kind: str) -> PolicyProblem:
    mark = getattr(err, "problem_mark", None)
    line = mark.line + 1 if mark is not None else None
    problem = getattr(err, "problem", None) or str(err)
    return PolicyProblem(line, "", f"{kind}: {problem}")


def _to_python(
    node: Node, path: Path_, lines: dict[Path_, int], constructor: yaml.SafeLoader
) -> Any:
    """Plain data from a YAML node, remembering the line of every path on the way."""
    lines[path] = node.start_mark.line + 1
    if len(lines) > MAX_VALUES or len(path) > MAX_DEPTH:
        raise _TooLarge
    if isinstance(node, MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            raw_key = (
                constructor.construct_object(key_node) if isinstance(key_node, ScalarNode) else None
            )
            key = raw_key if isinstance(raw_key, str) else str(raw_key)
            result[key] = _to_python(value_node, (*path, key), lines, constructor)
            lines[(*path, key)] = key_node.start_mark.line + 1  # the key's line, not its value's
        return result
    if isinstance(node, SequenceNode):
        return [
            _to_python(item, (*path, i), lines, constructor) for i, item in enumerate(node.value)
        ]
    return constructor.construct_object(node, deep=True)


def _problems(err: ValidationError, lines: dict[Path_, int]) -> list[PolicyProblem]:
    problems = []
    for error in err.errors(include_url=False, include_input=False):
        loc: Path_ = tuple(p for p in error["loc"] if isinstance(p, str | int))
        # pydantic adds markers such as "function-after[...]" for validators: skip them.
        path = tuple(p for p in loc if not (isinstance(p, str) and "[" in p))
        line = None
        for end in range(len(path), -1, -1):
            if (line := lines.get(path[:end])) is not None:
                break
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            message = f"unknown key {path[-1]!r}" if path else "unknown key"
            path = path[:-1] if path else path
        problems.append(PolicyProblem(line, _dotted(path), message))
    return problems


def _dotted(path: Path_) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text
