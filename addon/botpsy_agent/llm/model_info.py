"""What a GGUF file is, read from its metadata before the weights are loaded.

A file is usable only if it is a chat model whose template knows tools in a format we can
constrain (Qwen3.5 XML or Hermes JSON); anything else is refused with a clear message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
import os
from pathlib import Path


class ToolFormat(StrEnum):
    QWEN_XML = "qwen_xml"  # <tool_call><function=NAME><parameter=ARG>VALUE</parameter>…
    HERMES_JSON = "hermes_json"  # <tool_call>{"name": …, "arguments": {…}}</tool_call>


class ModelFileError(ValueError):
    """The file cannot serve as BotPsy's model; the message says why and what to do."""


QUANT_NAMES = {
    0: "F32",
    1: "F16",
    7: "Q8_0",
    15: "Q4_K_M",
    32: "BF16",
}


@dataclass(frozen=True)
class ModelInfo:
    path: Path
    architecture: str
    name: str
    context_length: int
    chat_template: str
    tool_format: ToolFormat
    quant: str
    size_bytes: int
    supports_thinking: bool

    def describe(self) -> dict[str, object]:
        """For MQTT `info` and logs: no template text."""
        return {
            "file": self.path.name,
            "name": self.name,
            "architecture": self.architecture,
            "quant": self.quant,
            "context_length": self.context_length,
            "tool_format": self.tool_format.value,
            "size_mb": round(self.size_bytes / 1e6, 1),
        }


def tool_format_of(template: str) -> ToolFormat | None:
    """Decide the tool-call format from the template text, as llama.cpp's server does."""
    if "<tool_call>" not in template:
        return None
    if "<function=" in template and "<parameter=" in template:
        return ToolFormat.QWEN_XML
    if "arguments" in template:
        return ToolFormat.HERMES_JSON
    return None


def read_model_info(path: Path) -> ModelInfo:
    """Read a GGUF's metadata (vocabulary only: fast), or raise `ModelFileError`."""
    from botpsy_agent.llm.logs import open_llama

    check_gguf_file(path)
    try:
        vocab = open_llama(model_path=str(path), vocab_only=True)
    except (ValueError, RuntimeError) as err:
        raise ModelFileError(f"llama.cpp cannot read {path}: {err}") from None
    try:
        return model_info_from(path, vocab.metadata)
    finally:
        vocab.close()


def check_gguf_file(path: Path) -> None:
    """Raise `ModelFileError` unless `path` is a file that starts like a GGUF."""
    if not path.is_file():
        raise ModelFileError(f"model file {path} does not exist")
    with path.open("rb") as handle:
        if handle.read(4) != b"GGUF":
            raise ModelFileError(f"{path} is not a GGUF file (wrong magic bytes)")


def model_info_from(path: Path, metadata: Mapping[str, str]) -> ModelInfo:
    """The model's description from its GGUF metadata, or `ModelFileError` when it cannot
    serve as BotPsy's model."""
    architecture = metadata.get("general.architecture", "unknown")
    template = metadata.get("tokenizer.chat_template")
    if not template:
        raise ModelFileError(
            f"{path.name} has no chat template: it is not a chat model (BotPsy needs one)"
        )
    tool_format = tool_format_of(template)
    if tool_format is None:
        raise ModelFileError(
            f"{path.name}'s chat template has no tool calls in a known format "
            "(Qwen3.5 XML or Hermes JSON): it cannot serve as BotPsy's model"
        )
    context = int(metadata.get(f"{architecture}.context_length", "0") or 0)
    file_type = int(metadata.get("general.file_type", "-1") or -1)
    return ModelInfo(
        path=path,
        architecture=architecture,
        name=metadata.get("general.name", path.stem),
        context_length=context,
        chat_template=template,
        tool_format=tool_format,
        quant=QUANT_NAMES.get(file_type, f"type {file_type}"),
        size_bytes=path.stat().st_size,
        supports_thinking="enable_thinking" in template,
    )


def physical_cores() -> int:
    """Physical cores (llama.cpp runs best with one thread each), from /proc/cpuinfo."""
    cores: set[tuple[str, str]] = set()
    physical = core = ""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        lines = []
    for line in lines:
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "physical id":
            physical = value
        elif key == "core id":
            core = value
            cores.add((physical, core))
    return len(cores) or os.cpu_count() or 1
