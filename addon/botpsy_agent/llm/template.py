"""Render conversations with the model's own chat template (from the GGUF).

The template is run in a sandboxed Jinja environment with the settings llama.cpp's Python
binding uses (trim/lstrip blocks, a `tojson` that keeps non-ASCII text), so prompts match
what the model was trained on. Tool-call arguments in history must be dicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
import json
from typing import Any

from jinja2 import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from botpsy_agent.llm.model_info import ModelFileError
from botpsy_agent.llm.quoting import defuse_messages

type Message = Mapping[str, Any]


def _tojson(value: Any, indent: int | None = None, **_: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent)


def _raise(message: str) -> None:
    raise TemplateError(message)


class ChatTemplate:
    """A compiled chat template."""

    def __init__(
        self,
        source: str,
        eos_token: str = "<|im_end|>",  # noqa: S107 - a chat token, not a secret
        bos_token: str = "",
    ) -> None:
        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        env.filters["tojson"] = _tojson
        env.globals["raise_exception"] = _raise
        env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
        try:
            self._template = env.from_string(source)
        except TemplateError as err:
            raise ModelFileError(f"the model's chat template does not compile: {err}") from None
        self._specials = {"eos_token": eos_token, "bos_token": bos_token}

    def render(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None = None,
        *,
        add_generation_prompt: bool = True,
        enable_thinking: bool = False,
    ) -> str:
        """The prompt text. Thinking off pre-fills an empty think block (tool turns).

        Text in user, assistant and tool turns is data: look-alikes of control tokens and
        tool tags in it are defused (`llm.quoting`), so it cannot open or close a turn."""
        return self._template.render(
            messages=defuse_messages(messages),
            tools=list(tools) if tools else None,
            add_generation_prompt=add_generation_prompt,
            enable_thinking=enable_thinking,
            **self._specials,
        )
