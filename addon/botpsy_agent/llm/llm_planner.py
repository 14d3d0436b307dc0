"""The real model's `Planner` (see `planning.py`): given the conversation, propose tool calls
or an answer, under a grammar, through the single worker. What the worker or engine cannot do
for a request leaves here as a `PlanError`.
"""

from __future__ import annotations

from dataclasses import replace
import hashlib
import json
import logging
import threading
import time
from typing import Any

from botpsy_agent.llm.conformance import outside_grammar
from botpsy_agent.llm.context import ANSWER_TOKENS, REQUEST_ROOM
from botpsy_agent.llm.engine import Completion, Engine, PromptTooLong
from botpsy_agent.llm.grammar import MAX_CALLS_PER_TURN, Grammar, Mode, build_grammar
from botpsy_agent.llm.parse import RawCall, parse_output
from botpsy_agent.llm.planning import (
    Offer,
    PlanError,
    PlanFailure,
    PlannerTurn,
    PlanRequest,
    RejectedCall,
    StepTimings,
)
from botpsy_agent.llm.prompt import RenderedPrompt, build_prefix, prefix_tokens, render_prompt
from botpsy_agent.llm.worker import (
    ModelBusy,
    ModelTimeout,
    ModelWarmingUp,
    ModelWorker,
    ModelWorkerError,
)
from tool_schemas.catalog import TOOLS, tool_json_schema

_LOGGER = logging.getLogger(__name__)
_SECURITY = logging.getLogger("botpsy_agent.security")


class LlmPlanner:
    """The real model, through the single worker."""

    def __init__(
        self,
        worker: ModelWorker,
        *,
        max_tokens: int = ANSWER_TOKENS,
        timeout_s: float = 60.0,
        thinking_budget: int = 0,
    ) -> None:
        self._worker = worker
        self._max_tokens = max_tokens
        self._timeout_s = timeout_s
        self._thinking_budget = thinking_budget
        self._grammars: dict[str, Grammar] = {}

    def prepare(self, offer: Offer) -> None:
        def warm(engine: Engine, cancel: threading.Event) -> None:
            self._grammar(engine, offer, Mode.REQUIRED)
            prefix = self._prefix_tokens(engine, offer)
            if self._check_fit(engine, prefix):
                engine.warm(prefix.tokens, cancel, cuts=prefix.cuts)

        self._worker.warm_up(warm)

    async def plan(self, request: PlanRequest) -> PlannerTurn:
        submitted = time.monotonic()

        def job(engine: Engine, cancel: threading.Event) -> PlannerTurn:
            return self._plan(engine, request, cancel, submitted)

        try:
            turn = await self._worker.run(job, self._timeout_s)
        except (ModelWorkerError, PromptTooLong) as err:
            raise _plan_error(err) from err
        total_ms = _ms_since(submitted)
        timings = replace(turn.timings, total_ms=total_ms)
        _LOGGER.debug("Request %s, model step %d: %s", request.request_id, request.step, timings)
        return replace(turn, model_ms=total_ms, timings=timings)

    async def check_grammars(self) -> int:
        """Compile the grammar of the whole catalogue and of every tool alone, in the
        loaded model's format; raises `EngineError` naming the tool llama.cpp rejects (an
        invalid grammar would otherwise crash it mid-request). Returns how many passed."""

        def job(engine: Engine, cancel: threading.Event) -> int:
            schemas = [tool_json_schema(tool) for tool in TOOLS.values()]
            grammars = [
                build_grammar(schemas, engine.info.tool_format, mode)
                for mode in (Mode.REQUIRED, Mode.AUTO)
            ]
            grammars += [build_grammar([s], engine.info.tool_format, Mode.FORCED) for s in schemas]
            for grammar in grammars:
                engine.check_grammar(grammar)
            return len(grammars)

        return await self._worker.run(job, self._timeout_s)

    # --- on the model thread -------------------------------------------------------------------

    def _grammar(
        self,
        engine: Engine,
        offer: Offer,
        mode: Mode,
        schemas: tuple[dict[str, Any], ...] | None = None,
    ) -> Grammar:
        narrowed = "" if schemas is None else _digest(schemas)
        key = f"{offer.key}:{mode.value}:{engine.info.tool_format.value}:{narrowed}"
        grammar = self._grammars.get(key)
        if grammar is None:
            grammar = build_grammar(schemas or offer.schemas, engine.info.tool_format, mode)
            engine.check_grammar(grammar)  # an invalid grammar would crash llama.cpp later
            if len(self._grammars) > 32:
                self._grammars.clear()
            self._grammars[key] = grammar
        return grammar

    def _check_fit(self, engine: Engine, prefix: RenderedPrompt) -> bool:
        """Say how much of the context the prompt takes, loudly when requests cannot fit
        (they are then answered `prompt_too_long`); False when not even the prefix fits."""
        needed = prefix.prefix_length + self._max_tokens + REQUEST_ROOM
        context = engine.context_length
        if needed > context:
            _LOGGER.warning(
                "The prompt prefix is %d tokens: with room for a request it needs a context "
                "of %d, but context_length is %d; raise it in the app's options (0: sized "
                "from the prompt)",
                prefix.prefix_length,
                needed,
                context,
            )
        else:
            _LOGGER.info(
                "Prompt prefix: %d tokens (%d shared by everyone) of a %d-token context",
                prefix.prefix_length,
                prefix.cuts[0],
                context,
            )
        return prefix.prefix_length < context

    @staticmethod
    def _prefix_tokens(engine: Engine, offer: Offer) -> RenderedPrompt:
        """The shared prefix (system, tools) then this offer's listing, with both cuts."""
        return prefix_tokens(engine.template, engine.tokenize, build_prefix(offer.listing))

    def _plan(
        self, engine: Engine, request: PlanRequest, cancel: threading.Event, submitted: float
    ) -> PlannerTurn:
        started = time.monotonic()
        offer = request.offer
        thinking = self._thinking_budget > 0 and engine.info.supports_thinking
        rendered = render_prompt(
            engine.template,
            engine.tokenize,
            build_prefix(offer.listing),
            request.messages,
            enable_thinking=thinking,
        )
        tokens, prefix_length = rendered.tokens, rendered.cuts
        rendered_at = time.monotonic()
        mode = Mode.REQUIRED if request.calls_only else Mode.AUTO
        grammar = self._grammar(engine, offer, mode, request.schemas)
        grammar_ms = _ms_since(rendered_at)
        completions = []
        if thinking:
            thought = engine.complete(
                tokens,
                prefix_length,
                None,
                self._thinking_budget,
                cancel=cancel,
                stop=("</think>",),
            )
            completions.append(thought)
            closing = "" if thought.text.rstrip().endswith("</think>") else "\n</think>"
            tokens = [*tokens, *thought.tokens, *engine.tokenize(closing + "\n\n")]
        completion = engine.complete(
            tokens, prefix_length, grammar, self._max_tokens, cancel=cancel
        )
        completions.append(completion)
        schemas = {s["name"]: s for s in offer.schemas}
        output = parse_output(completion.text, engine.info.tool_format, schemas)
        calls, rejected = held_to_grammar(output.calls, request.schemas or offer.schemas)
        return PlannerTurn(
            calls=calls,
            text=output.text,
            problems=output.problems,
            rejected=rejected,
            model_ms=_ms_since(submitted),
            timings=_step_timings(
                request.step,
                completions,
                wait_ms=(started - submitted) * 1000,
                render_ms=(rendered_at - started) * 1000,
                grammar_ms=grammar_ms,
            ),
            truncated=completion.finish_reason == "length",
        )


def held_to_grammar(
    calls: tuple[RawCall, ...], schemas: tuple[dict[str, Any], ...]
) -> tuple[tuple[RawCall, ...], tuple[RejectedCall, ...]]:
    """The calls to run and the ones rejected: every parsed call is held to the grammar it
    was generated under, whichever engine produced it (llama.cpp in-process enforces it;
    a model server is only asked to). One call outside it and the whole turn is rejected:
    what wrote it ignored the grammar, so none of its calls is the model's choice."""
    reasons = [
        f"more than the grammar's {MAX_CALLS_PER_TURN} calls in one turn"
        if number >= MAX_CALLS_PER_TURN
        else outside_grammar(call, schemas)
        for number, call in enumerate(calls)
    ]
    if not any(reasons):
        return calls, ()
    _SECURITY.warning(
        "Security event: the model's output is outside its grammar (%s): none of its calls "
        "runs; a model server that does this is not llama-server, or is not the one meant",
        "; ".join(repr(r) for r in reasons if r),
    )
    return (), tuple(
        RejectedCall(call, reason or "written with a call outside the grammar")
        for call, reason in zip(calls, reasons, strict=True)
    )


def _plan_error(err: Exception) -> PlanError:
    """The worker's and engine's reasons, as the one family the agent knows."""
    if isinstance(err, ModelWarmingUp):
        return PlanError(PlanFailure.WARMING_UP, str(err), percent=err.percent, eta_s=err.eta_s)
    failure = {
        ModelBusy: PlanFailure.BUSY,
        ModelTimeout: PlanFailure.TIMEOUT,
        PromptTooLong: PlanFailure.PROMPT_TOO_LONG,
    }.get(type(err), PlanFailure.UNAVAILABLE)
    return PlanError(failure, str(err))


def _step_timings(
    step: int, completions: list[Completion], *, wait_ms: float, render_ms: float, grammar_ms: float
) -> StepTimings:
    """One step's figures from its completions (two with a thought: it, then the answer)."""
    generated = sum(len(c.tokens) for c in completions)
    compile_ms = sum(c.grammar_ms for c in completions)
    generation_ms = sum(c.generation_ms for c in completions) - compile_ms
    first = completions[0]
    return StepTimings(
        step=step,
        wait_ms=wait_ms,
        render_ms=render_ms,
        grammar_ms=grammar_ms + compile_ms,
        prefix_source=first.prefix_source,
        prompt_tokens=completions[-1].prompt_tokens,
        evaluated_tokens=sum(c.evaluated_tokens for c in completions),
        prompt_ms=sum(c.prompt_ms for c in completions),
        restore_ms=sum(c.restore_ms for c in completions),
        build_ms=sum(c.build_ms for c in completions),
        generation_ms=generation_ms,
        sampled_tokens=sum(c.sampled_tokens for c in completions),
        forced_tokens=sum(c.forced_tokens for c in completions),
        decode_steps=sum(c.decode_steps for c in completions),
        ms_per_token=generation_ms / generated if generated else 0.0,
    )


def _ms_since(started: float) -> float:
    return (time.monotonic() - started) * 1000


def _digest(schemas: tuple[dict[str, Any], ...]) -> str:
    text = json.dumps(schemas, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
