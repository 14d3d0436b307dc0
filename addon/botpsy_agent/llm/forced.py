"""What a grammar allows as the only continuation: text the model need not be asked for.

A tool call is mostly scaffolding the grammar fixes (`<tool_call>\\n{"name": "`, the rest of
a tool name once it is unique, `", "arguments": {"`, key names in fixed order, closing
brackets). Sampling it one decode step a token costs as much as a real choice; evaluating it
in one batch costs little more than one step (jump-forward).

The forced text is read from the compiled grammar itself, so it can never disagree with
what llama.cpp enforces: on a copy of the grammar sampler, the 256 single-byte tokens and one
end-of-generation token are offered; if exactly one byte is allowed (and the end is not), that
byte is forced, is accepted by the copy, and the next one is asked. Any continuation starts
with a single byte, so "one byte allowed" means "nothing else allowed". Each step offers 257
candidates, not the ~150k of the vocabulary.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np

MAX_FORCED_BYTES = 256


@dataclass(frozen=True)
class ForcedText:
    text: bytes
    """The bytes every continuation starts with (possibly none)."""
    ends: bool
    """After them the grammar allows only the end of generation."""


class ForcedTextProbe:
    """Reads forced text from a grammar sampler, for one vocabulary."""

    def __init__(self, vocab: Any, n_vocab: int, eog_token: int) -> None:
        import llama_cpp

        ids = np.full(256, -1, dtype=np.int32)
        buffer = ctypes.create_string_buffer(8)
        for token in range(n_vocab):
            size = llama_cpp.llama_token_to_piece(vocab, token, buffer, 8, 0, False)
            if size == 1 and not llama_cpp.llama_vocab_is_control(vocab, token):
                byte = buffer.raw[0]
                if ids[byte] < 0:
                    ids[byte] = token
        self.complete = bool((ids >= 0).all())
        """Every byte has a token: without that, "one byte allowed" proves nothing."""
        self._bytes = np.flatnonzero(ids >= 0)
        self._ids = np.append(ids[self._bytes], np.int32(eog_token))
        self._array = (llama_cpp.llama_token_data * len(self._ids))()
        self._view = np.ctypeslib.as_array(self._array)

    def forced(self, sampler: Any) -> ForcedText:
        """The forced text where `sampler` (a grammar sampler) stands now; it is not changed."""
        import llama_cpp

        if not self.complete:
            return ForcedText(b"", ends=False)
        probe = llama_cpp.llama_sampler_clone(sampler)
        text = bytearray()
        try:
            while len(text) < MAX_FORCED_BYTES:
                self._view["id"] = self._ids
                self._view["logit"] = 0.0
                self._view["p"] = 0.0
                candidates = llama_cpp.llama_token_data_array(
                    self._array, len(self._ids), -1, False
                )
                llama_cpp.llama_sampler_apply(probe, ctypes.byref(candidates))
                allowed = np.flatnonzero(np.isfinite(self._view["logit"]))
                end_allowed = len(self._ids) - 1 in allowed
                if end_allowed or len(allowed) != 1:
                    return ForcedText(bytes(text), ends=end_allowed and len(allowed) == 1)
                (index,) = allowed
                text.append(int(self._bytes[index]))
                llama_cpp.llama_sampler_accept(probe, int(self._ids[index]))
            return ForcedText(bytes(text), ends=False)
        finally:
            llama_cpp.llama_sampler_free(probe)
