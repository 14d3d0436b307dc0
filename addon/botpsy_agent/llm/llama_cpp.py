"""llama.cpp in-process: load a GGUF, keep prompt prefixes warm, generate under a grammar.

Qwen3.5 is hybrid (Gated DeltaNet + attention): llama.cpp can extend an evaluated prompt but
cannot roll back to a shared prefix. So the fixed prefix (system prompt, tools, entity listing)
is evaluated once and its sequence state saved; a request restores it and evaluates only its
own tokens. Every method runs on the model worker's thread: a `Llama` is not thread-safe.

This is the only module that touches llama-cpp-python (pinned 0.3.36: the snapshot restore
sets `n_tokens`/`input_ids`, which are its internals).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
import ctypes
from dataclasses import dataclass
import hashlib
import json
import logging
from pathlib import Path
import threading
import time

import numpy as np

from botpsy_agent.llm.engine import (
    BuildProgress,
    Cancelled,
    Completion,
    EngineError,
    FinishReason,
    PrefixSource,
    PromptTooLong,
)
from botpsy_agent.llm.forced import ForcedTextProbe
from botpsy_agent.llm.grammar import Grammar
from botpsy_agent.llm.logs import open_llama
from botpsy_agent.llm.model_info import (
    ModelFileError,
    check_gguf_file,
    model_info_from,
    physical_cores,
)
from botpsy_agent.llm.snapshots import PrefixCache, Snapshot, SnapshotStore, file_sha256
from botpsy_agent.llm.template import ChatTemplate

_LOGGER = logging.getLogger(__name__)


class BuildYielded(Exception):
    """A warm-up's prefix build stopped between batches for a waiting request; what it had
    evaluated is kept (`LlamaEngine._partial`) and the next build of that prefix goes on
    from there."""


@dataclass(frozen=True)
class EngineSettings:
    model_path: Path
    context_length: int = 8192
    batch_size: int = 256
    threads: int | None = None
    """None: one per physical core."""
    flash_attention: bool = False
    """Off: on the CPU, llama.cpp's flash attention builds a cold prefix a little faster
    but makes every turn slower on top of its snapshot, where turns spend their time: a
    34-token request took 1.2 s instead of 0.27 s and each generated token 64 ms instead
    of 37 ms at ~2,000 tokens of context with the 0.5B (D83)."""
    snapshot_budget_mb: int = 512
    seed: int = 0
    snapshot_dir: Path | None = None
    """Where prefix snapshots are kept across restarts; None: in memory only."""
    snapshot_disk_mb: int = 256
    jump_forward: bool = True
    """Evaluate grammar-forced text in one batch instead of one decode step a token."""
    pausable_chunk: int = 128
    """Tokens a background prefix build evaluates between looks for a waiting request: a
    request waits at most one chunk. With the 0.5B on 2 cores a 256-token batch took up to
    1.7 s and a 128-token chunk 0.9 s, for the same 2,000-token build time (11.6 s; 64-token
    chunks: 0.46 s, 11.9 s). A build a request itself waits for runs in whole batches."""


class LlamaEngine:
    """One loaded model."""

    def __init__(self, settings: EngineSettings) -> None:
        self.settings = settings
        check_gguf_file(settings.model_path)
        threads = settings.threads or physical_cores()
        started = time.monotonic()
        try:
            self._llm = open_llama(
                model_path=str(settings.model_path),
                n_ctx=settings.context_length,
                n_batch=settings.batch_size,
                n_ubatch=settings.batch_size,
                n_threads=threads,
                n_threads_batch=threads,
                flash_attn=settings.flash_attention,
                seed=settings.seed,
                use_mmap=True,
            )
        except (ValueError, RuntimeError) as err:
            raise ModelFileError(f"llama.cpp cannot read {settings.model_path}: {err}") from None
        try:  # the metadata of the model just loaded: no second read of the file
            self.info = model_info_from(settings.model_path, self._llm.metadata)
        except ModelFileError:
            self._llm.close()
            raise
        self.load_seconds = time.monotonic() - started
        self.threads = threads
        self.template = ChatTemplate(self.info.chat_template)
        self.prefixes = PrefixCache(settings.snapshot_budget_mb * 1024 * 1024, self._store())
        self.evaluated_total = 0
        """Every prompt or generated token evaluated since load (tests count with it)."""
        self.build: BuildProgress | None = None
        """The prefix being built now, if any."""
        self.builds = 0
        self._build_seconds = 0.0
        self._build_rate: float | None = None
        self.abort = threading.Event()
        """Set when the worker stops: the only thing that interrupts a prefix build."""
        self.yield_build: Callable[[], bool] | None = None
        """Set by the worker while a warm-up runs: True when a request waits. The build then
        stops between chunks of `pausable_chunk` tokens (`BuildYielded`), keeping what it
        evaluated."""
        self._partial: Snapshot | None = None
        """The state where a yielded build stopped (one at a time), until a build of the
        same prefix goes on from it."""
        self._vocab = self._llm._model.vocab
        self.jump_forward = settings.jump_forward
        self._probe: ForcedTextProbe | None = None
        self._restore_ms = 0.0
        self._build_ms = 0.0
        """Where the current completion's positioning went (see `Completion`)."""

    # --- text <-> tokens ------------------------------------------------------------------

    def tokenize(self, text: str) -> list[int]:
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def detokenize(self, tokens: list[int] | tuple[int, ...]) -> str:
        return bytes(self._llm.detokenize(list(tokens), special=True)).decode(
            "utf-8", errors="replace"
        )

    @property
    def context_length(self) -> int:
        return int(self._llm.n_ctx())

    # --- grammar ---------------------------------------------------------------------------

    def check_grammar(self, grammar: Grammar) -> None:
        """Compile a grammar once; llama.cpp would crash later on an invalid one."""
        import llama_cpp

        sampler = llama_cpp.llama_sampler_init_grammar(
            self._vocab, grammar.text.encode("utf-8"), b"root"
        )
        if not sampler:
            raise EngineError(f"llama.cpp rejected the grammar for {', '.join(grammar.tools)}")
        llama_cpp.llama_sampler_free(sampler)

    # --- evaluation with prefix snapshots --------------------------------------------------

    def warm(
        self,
        prefix: list[int],
        cancel: threading.Event | None = None,
        *,
        cuts: Sequence[int] = (),
    ) -> bool:
        """Have a snapshot of `prefix` (and of its shorter prefixes ending at `cuts`): from
        memory, from disk, or evaluated now. True if anything was evaluated. `cancel` is
        checked before; it does not stop a build once begun (see `_build`)."""
        if cancel is not None and cancel.is_set():
            raise Cancelled
        ends = _cuts(sorted({*cuts, len(prefix)}), len(prefix), len(prefix))
        if self.prefixes.get(PrefixCache.key(prefix)) is not None:
            return False
        before = self.evaluated_total
        self._build(prefix, ends)
        return self.evaluated_total > before

    def build_seconds(self) -> float:
        """Seconds spent building prefixes since load, the build running now included: a
        request's timeout does not count them."""
        build = self.build
        ongoing = time.monotonic() - build.started if build is not None else 0.0
        return self._build_seconds + ongoing

    def complete(
        self,
        prompt: list[int],
        prefix_length: int | Sequence[int],
        grammar: Grammar | None,
        max_tokens: int,
        *,
        cancel: threading.Event | None = None,
        temperature: float = 0.0,
        seed: int | None = None,
        stop: tuple[str, ...] = (),
    ) -> Completion:
        """Generate after `prompt`, whose first `prefix_length` tokens are the fixed prefix.

        `prefix_length` may list several nested prefix ends (the shared part, then the
        principal's): each gets its own snapshot, so a principal whose listing is new
        evaluates only its listing on top of the shared snapshot."""
        if len(prompt) + max_tokens > self.context_length:
            raise PromptTooLong(len(prompt), max_tokens, self.context_length)
        started = time.monotonic()
        self._restore_ms = self._build_ms = 0.0
        source, evaluated = self._position(prompt, prefix_length, cancel)
        prompt_ms = (time.monotonic() - started) * 1000

        started = time.monotonic()
        if seed is not None:
            self._llm.set_seed(seed)
        counts = _Counts()
        if grammar is not None and temperature == 0:
            generated, finish = self._greedy_constrained(grammar, max_tokens, cancel, stop, counts)
        else:
            generated, finish = self._sampled(
                grammar, max_tokens, cancel, stop, temperature, counts=counts
            )
        self.evaluated_total += len(generated)
        return Completion(
            text=self.detokenize(generated),
            tokens=tuple(generated),
            finish_reason=finish,
            prompt_tokens=len(prompt),
            evaluated_tokens=evaluated,
            prefix_source=source,
            prompt_ms=prompt_ms,
            generation_ms=(time.monotonic() - started) * 1000,
            forced_tokens=counts.forced,
            decode_steps=counts.steps,
            restore_ms=self._restore_ms,
            build_ms=self._build_ms,
            grammar_ms=counts.grammar_ms,
        )

    def _greedy_constrained(
        self,
        grammar: Grammar,
        max_tokens: int,
        cancel: threading.Event | None,
        stop: tuple[str, ...],
        counts: _Counts,
    ) -> tuple[list[int], FinishReason]:
        """Greedy decoding under a grammar, asking the grammar about the best token first.

        llama.cpp's grammar sampler walks every candidate it is given; with Qwen's vocabulary
        of ~250k tokens that halves generation speed. Greedy decoding only needs to know
        whether the most likely token is allowed, which it usually is; only when the grammar
        refuses it are all tokens checked (llama.cpp's server does the same).

        With `jump_forward`, the text the grammar then forces is fed with the sampled token
        in one batch (see `_forced_tokens`).
        """
        import llama_cpp

        compiling = time.monotonic()
        sampler = llama_cpp.llama_sampler_init_grammar(
            self._vocab, grammar.text.encode("utf-8"), b"root"
        )
        counts.grammar_ms += (time.monotonic() - compiling) * 1000
        if not sampler:
            raise EngineError(f"llama.cpp rejected the grammar for {', '.join(grammar.tools)}")
        n_vocab = self._llm.n_vocab()
        one = (llama_cpp.llama_token_data * 1)()
        every = (llama_cpp.llama_token_data * n_vocab)()
        every_view = np.ctypeslib.as_array(every)
        every_view["id"] = np.arange(n_vocab, dtype=np.int32)
        generated: list[int] = []
        finish: FinishReason = "length"
        try:
            while len(generated) < max_tokens:
                if cancel is not None and cancel.is_set():
                    finish = "cancelled"
                    break
                pointer = llama_cpp.llama_get_logits_ith(self._llm.ctx, -1)
                logits = np.ctypeslib.as_array(pointer, shape=(n_vocab,))
                token = int(np.argmax(logits))
                one[0].id, one[0].logit, one[0].p = token, float(logits[token]), 0.0
                candidates = llama_cpp.llama_token_data_array(one, 1, -1, False)
                llama_cpp.llama_sampler_apply(sampler, ctypes.byref(candidates))
                if not np.isfinite(one[0].logit):
                    every_view["logit"] = logits
                    every_view["p"] = 0.0
                    candidates = llama_cpp.llama_token_data_array(every, n_vocab, -1, False)
                    llama_cpp.llama_sampler_apply(sampler, ctypes.byref(candidates))
                    allowed = every_view["logit"]
                    token = int(np.argmax(allowed))
                    if not np.isfinite(allowed[token]):
                        raise EngineError("the grammar allows no token here")
                llama_cpp.llama_sampler_accept(sampler, token)
                if self._take(token, generated, stop):
                    finish = "stop"
                    break
                kept = len(generated)
                batch, ends = self._with_forced(sampler, token, generated, max_tokens, stop)
                counts.forced += len(generated) - kept
                if ends:  # nothing but the end may follow: no need to ask the model
                    finish = "stop"
                    break
                if len(generated) < max_tokens:
                    self._llm.eval(batch)
                    counts.steps += 1
        finally:
            llama_cpp.llama_sampler_free(sampler)
        return generated, finish

    def _with_forced(
        self,
        sampler: object,
        token: int,
        generated: list[int],
        max_tokens: int,
        stop: tuple[str, ...],
    ) -> tuple[list[int], bool]:
        """`token` and the forced tokens after it (accepted by the grammar, kept), to
        evaluate in one batch; and whether generation ends with them."""
        import llama_cpp

        batch = [token]
        forced, ends = self._forced_tokens(sampler, max_tokens - len(generated))
        for extra in forced:
            llama_cpp.llama_sampler_accept(sampler, extra)
            if self._take(extra, generated, stop):
                return batch, True
            batch.append(extra)
        return batch, ends

    def _forced_tokens(self, sampler: object, room: int) -> tuple[list[int], bool]:
        """The tokens of the text the grammar forces now, at most `room`, and whether only
        the end may follow them.

        The forced text is tokenised on its own, which need not be how the model would
        split it where it meets what follows (a token may span the boundary): so its last
        token is held back and left to the model, unless the grammar ends there."""
        if not self.jump_forward or room <= 0:
            return [], False
        if self._probe is None:
            self._probe = ForcedTextProbe(self._vocab, self._llm.n_vocab(), self._llm.token_eos())
        forced = self._probe.forced(sampler)
        text = forced.text.decode("utf-8", errors="ignore")
        if forced.text and text.encode("utf-8") != forced.text:
            return [], False  # ends inside a character: leave it all to the model
        tokens = self.tokenize(text) if text else []
        if not forced.ends:
            tokens = tokens[:-1]
        if len(tokens) > room:
            return tokens[:room], False
        return tokens, forced.ends

    def _sampled(
        self,
        grammar: Grammar | None,
        max_tokens: int,
        cancel: threading.Event | None,
        stop: tuple[str, ...],
        temperature: float,
        *,
        counts: _Counts | None = None,
    ) -> tuple[list[int], FinishReason]:
        """llama-cpp-python's own sampling loop (unconstrained, or with a temperature)."""
        from llama_cpp.llama_grammar import LlamaGrammar

        compiling = time.monotonic()
        compiled = LlamaGrammar.from_string(grammar.text, verbose=False) if grammar else None
        if counts is not None:
            counts.grammar_ms += (time.monotonic() - compiling) * 1000
        generated: list[int] = []
        finish: FinishReason = "length"
        for token in self._llm.generate(
            [],
            temp=temperature,
            top_k=0 if temperature == 0 else 40,
            top_p=1.0,
            min_p=0.0,
            repeat_penalty=1.0,
            reset=False,
            grammar=compiled,
        ):
            if cancel is not None and cancel.is_set():
                finish = "cancelled"
                break
            if self._take(token, generated, stop):
                finish = "stop"
                break
            if len(generated) >= max_tokens:
                break
        return generated, finish

    def next_token_logits(
        self, prompt: list[int], prefix_length: int | Sequence[int]
    ) -> np.ndarray:
        """The logits after `prompt` (through the same snapshot logic as `complete`)."""
        import llama_cpp

        self._position(prompt, prefix_length, None)
        pointer = llama_cpp.llama_get_logits_ith(self._llm.ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(self._llm.n_vocab(),)).copy()

    def evaluate_next(self, token: int) -> np.ndarray:
        """Evaluate one more token where the model stands; the logits after it."""
        import llama_cpp

        self._eval([token], None)
        pointer = llama_cpp.llama_get_logits_ith(self._llm.ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(self._llm.n_vocab(),)).copy()

    def evaluate_fresh(self, *chunks: list[int]) -> np.ndarray:
        """Reset and evaluate `chunks` one after another; the logits after the last one."""
        import llama_cpp

        self._llm.reset()
        for chunk in chunks:
            self._eval(chunk, None)
        pointer = llama_cpp.llama_get_logits_ith(self._llm.ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(self._llm.n_vocab(),)).copy()

    def close(self) -> None:
        self._llm.close()

    # --- internals -------------------------------------------------------------------------

    def _position(
        self,
        prompt: list[int],
        prefix_length: int | Sequence[int],
        cancel: threading.Event | None,
    ) -> tuple[PrefixSource, int]:
        """Bring the model state to the end of `prompt`, evaluating as little as possible."""
        ends = _cuts(prefix_length, len(prompt) - 1, len(prompt))
        current = self._llm.n_tokens
        # Only past the prefix: inside it (a paused build) the prefix must be built and saved.
        if ends[-1] <= current:
            shared = self._shared_length(prompt)
            if shared >= ends[-1] and self._cut_back(shared):
                rest = prompt[shared:]
                self._eval(rest, cancel)
                return ("extended" if shared == current else "trimmed"), len(rest)
        restored = self._build(prompt, ends)
        rest = prompt[ends[-1] :]
        self._eval(rest, cancel)
        if restored == ends[-1]:
            return "snapshot", len(rest)
        if restored in ends:
            return "shared", len(prompt) - restored
        return ("resumed" if restored else "fresh"), len(prompt) - restored

    def _build(self, prompt: list[int], ends: tuple[int, ...]) -> int:
        """Stand at `prompt[:ends[-1]]`: restore the longest prefix with a snapshot, then
        evaluate and snapshot each further end. Returns where the restored state ended.

        A job's cancel flag does not stop a build (a cancelled build would start again from
        zero: with a slow model, a livelock); only `abort` (the worker stopping) does."""
        start = 0
        looking = time.monotonic()
        for end in reversed(ends):
            key = PrefixCache.key(prompt[:end])
            snapshot = self.prefixes.get(key)
            if snapshot is not None and self._restore(snapshot):
                start = end
                break
            if snapshot is not None:  # llama.cpp refused it: evaluate the prefix again
                self.prefixes.forget(key)
        else:
            self._llm.reset()
        start = self._resume(prompt, start, ends[-1])
        self._restore_ms += (time.monotonic() - looking) * 1000
        restored = start
        if ends[-1] <= start:
            return restored
        progress = BuildProgress(ends[-1] - start, prior_rate=self._build_rate)
        self.build = progress
        try:
            for end in ends:
                if end <= start:
                    continue
                self._eval_building(prompt[start:end], progress)
                self._save(PrefixCache.key(prompt[:end]))
                start = end
        finally:
            elapsed = time.monotonic() - progress.started
            self._build_seconds += elapsed
            self._build_ms += elapsed * 1000
            self.build = None
            if progress.done and elapsed > 0:  # a paused build's rate serves the next estimate
                self._build_rate = progress.done / elapsed
        self.builds += 1
        _LOGGER.info("Prefix of %d tokens built in %.1f s", progress.total, elapsed)
        return restored

    def _resume(self, prompt: list[int], start: int, end: int) -> int:
        """Go on from a yielded build's state when it lies on this prompt past `start`."""
        partial = self._partial
        if partial is None or not start < len(partial.tokens) < end:
            return start
        if not np.array_equal(partial.tokens, np.asarray(prompt[: len(partial.tokens)])):
            return start
        self._partial = None  # consumed: a build paused again saves where it stops then
        if not self._restore(partial):
            return start
        _LOGGER.info("Prefix build resumed at token %d of %d", len(partial.tokens), end)
        return len(partial.tokens)

    def _eval_building(self, tokens: list[int], progress: BuildProgress) -> None:
        step = self.settings.batch_size
        if self.yield_build is not None:
            step = min(step, self.settings.pausable_chunk)
        for first in range(0, len(tokens), step):
            if self.abort.is_set():
                self._llm.reset()
                raise Cancelled
            if self.yield_build is not None and self.yield_build():
                self.evaluated_total += first
                if self._llm.n_tokens:
                    self._partial = self._state()
                _LOGGER.info("Prefix build paused at %d tokens for a request", progress.done)
                raise BuildYielded
            chunk = tokens[first : first + step]
            self._llm.eval(chunk)
            progress.done += len(chunk)
        self.evaluated_total += len(tokens)

    def _shared_length(self, prompt: list[int]) -> int:
        """How many of the evaluated tokens begin `prompt`, leaving at least its last token
        to evaluate (its logits are the ones generation starts from)."""
        evaluated = self._llm.input_ids[: min(self._llm.n_tokens, len(prompt) - 1)]
        differ = np.flatnonzero(evaluated != np.asarray(prompt[: len(evaluated)], evaluated.dtype))
        return int(differ[0]) if len(differ) else len(evaluated)

    def _cut_back(self, length: int) -> bool:
        """Forget the evaluated tokens past `length`. A step's prompt renders the model's call
        in the template's own words, which part from the tokens the model generated a few
        tokens in: cutting back there beats restoring the prefix and evaluating the whole
        conversation again. False where llama.cpp cannot (a recurrent model's state, as in
        Qwen3.5, holds no positions to cut; it is left untouched)."""
        if length == self._llm.n_tokens:
            return True
        import llama_cpp

        memory = llama_cpp.llama_get_memory(self._llm.ctx)
        if not llama_cpp.llama_memory_seq_rm(memory, 0, length, -1):
            return False
        self._llm.n_tokens = length
        return True

    def _eval(self, tokens: list[int], cancel: threading.Event | None) -> None:
        batch = self.settings.batch_size
        for start in range(0, len(tokens), batch):
            if cancel is not None and cancel.is_set():
                self._llm.reset()  # a half-evaluated prompt is of no use to anyone
                raise Cancelled
            self._llm.eval(tokens[start : start + batch])
        self.evaluated_total += len(tokens)

    def _save(self, key: str) -> None:
        snapshot = self._state()
        self.prefixes.put(key, snapshot)
        _LOGGER.debug(
            "Prefix snapshot of %d tokens saved (%.1f MB)",
            len(snapshot.tokens),
            snapshot.size / 1e6,
        )

    def _state(self) -> Snapshot:
        """The sequence state where the model stands now, with its tokens."""
        import llama_cpp

        ctx = self._llm.ctx
        size = llama_cpp.llama_state_seq_get_size(ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(ctx, buffer, size, 0)
        if written == 0:
            raise EngineError("llama.cpp could not save the prefix state")
        tokens = self._llm.input_ids[: self._llm.n_tokens].copy()
        return Snapshot(bytes(buffer)[:written], tokens)

    def _restore(self, snapshot: Snapshot) -> bool:
        """Put a snapshot's state in place; False if llama.cpp refuses it (the caller then
        drops it, and the prefix is evaluated again instead)."""
        import llama_cpp

        data = (ctypes.c_uint8 * len(snapshot.state)).from_buffer_copy(snapshot.state)
        if llama_cpp.llama_state_seq_set_data(self._llm.ctx, data, len(snapshot.state), 0) == 0:
            _LOGGER.warning("llama.cpp refused a prefix snapshot; evaluating the prefix again")
            self._llm.reset()
            return False
        count = len(snapshot.tokens)
        self._llm.input_ids[:count] = snapshot.tokens
        self._llm.n_tokens = count
        return True

    def _store(self) -> SnapshotStore | None:
        """The snapshot folder for this model file, llama.cpp build and context settings."""
        folder = self.settings.snapshot_dir
        if folder is None:
            return None
        identity = json.dumps(
            {
                "model_sha256": _model_sha256(self.settings.model_path, folder),
                "llama_cpp": _llama_build(),
                "n_ctx": self.context_length,
                "n_batch": self.settings.batch_size,
                "flash_attention": self.settings.flash_attention,
            },
            sort_keys=True,
        )
        return SnapshotStore(folder, identity, self.settings.snapshot_disk_mb * 1024 * 1024)

    def _take(self, token: int, generated: list[int], stop: tuple[str, ...]) -> bool:
        """Keep a generated token; True when generation ends with it (an end-of-generation
        token, which is not kept, or a stop string)."""
        if self._is_end(token):
            return True
        generated.append(token)
        return any(s in self.detokenize(generated[-8:]) for s in stop)

    def _is_end(self, token: int) -> bool:
        import llama_cpp

        return bool(llama_cpp.llama_vocab_is_eog(self._vocab, token))


@dataclass
class _Counts:
    forced: int = 0
    steps: int = 0
    grammar_ms: float = 0.0


def _cuts(prefix_length: int | Sequence[int], longest: int, total: int) -> tuple[int, ...]:
    """Nested prefix ends, ascending; each must leave something after it (`longest`)."""
    ends = (prefix_length,) if isinstance(prefix_length, int) else tuple(prefix_length)
    ends = ends or (total,)
    if any(not 0 < end <= longest for end in ends) or list(ends) != sorted(set(ends)):
        raise EngineError("the prefix must be shorter than the prompt and not empty")
    return ends


def _model_sha256(path: Path, folder: Path) -> str:
    """The model file's SHA-256, remembered by path, size and time so a restart does not
    read the whole file again."""
    stat = path.stat()
    memo = folder / "model-hashes.json"
    mark = f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"
    try:
        known = json.loads(memo.read_text())
    except OSError, ValueError:
        known = {}
    if not isinstance(known, dict):
        known = {}
    if isinstance(digest := known.get(mark), str):
        return digest
    _LOGGER.info("Hashing %s to key its prefix snapshots…", path.name)
    digest = file_sha256(path)
    folder.mkdir(parents=True, exist_ok=True)
    memo.write_text(json.dumps({mark: digest}))
    return digest


def _llama_build() -> str:
    """llama-cpp-python's version and a hash of the native library it loaded."""
    import llama_cpp
    import llama_cpp.llama_cpp as native

    library = Path(native._lib._name)
    digest = hashlib.sha256(library.read_bytes()).hexdigest()[:16]
    return f"{llama_cpp.__version__}+{digest}"
