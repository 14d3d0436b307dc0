"""Prefix snapshots on real llama.cpp: one shared prefix for every principal, and snapshots
that survive a restart, with foreign or damaged files ignored and rebuilt."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
import time

import numpy as np

from botpsy_agent.agent.offer import build_offer
from botpsy_agent.llm.llama_cpp import EngineSettings, LlamaEngine
from botpsy_agent.llm.planning import Offer
from botpsy_agent.llm.prompt import RenderedPrompt, build_prefix, prefix_tokens, render_prompt
from botpsy_agent.llm.snapshots import SUFFIX, PrefixCache, Snapshot, SnapshotStore
from botpsy_agent.policy import scope
from devkit.homes import family_home
from devkit.tiny_gguf import TINY_QWEN35, prompt_merges, write_model
from tests.policy.policies import admin, family_policy, guest

NOON = datetime(2026, 11, 30, 12, tzinfo=UTC)
HOME = family_home()


def offer_for(principal: object) -> Offer:
    return build_offer(scope(family_policy(), principal, HOME, NOON), HOME)  # type: ignore[arg-type]


def prompt(engine: LlamaEngine, offer: Offer, text: str) -> RenderedPrompt:
    messages = [{"role": "user", "content": text}]
    return render_prompt(engine.template, engine.tokenize, build_prefix(offer.listing), messages)


def test_two_principals_share_the_system_and_tools_snapshot(qwen35_engine: LlamaEngine) -> None:
    engine = qwen35_engine
    engine.prefixes = PrefixCache(engine.prefixes.budget)  # start without snapshots
    grown_up, kid = offer_for(admin), offer_for(guest)
    assert set(kid.tool_names) < set(grown_up.tool_names)  # the grammars still differ
    assert kid.entity_ids < grown_up.entity_ids
    first, second = prompt(engine, grown_up, "hello"), prompt(engine, kid, "hello")
    shared = first.cuts[0]
    assert second.cuts[0] == shared and first.tokens[:shared] == second.tokens[:shared]

    built = engine.complete(first.tokens, first.cuts, None, 1)
    assert (built.prefix_source, built.evaluated_tokens) == ("fresh", len(first.tokens))
    assert len(engine.prefixes) == 2  # the shared part, and the admin's whole prefix

    other = engine.complete(second.tokens, second.cuts, None, 1)
    assert other.prefix_source == "shared"
    assert other.evaluated_tokens == len(second.tokens) - shared  # the child's own part only
    assert other.evaluated_tokens < shared / 2
    assert len(engine.prefixes) == 3
    again = engine.complete(second.tokens, second.cuts, None, 1)
    own = len(second.tokens) - second.prefix_length
    assert (again.prefix_source, again.evaluated_tokens) == ("snapshot", own)


def test_warming_builds_the_shared_part_once(qwen35_engine: LlamaEngine) -> None:
    engine = qwen35_engine
    engine.prefixes = PrefixCache(engine.prefixes.budget)
    grown_up = prefix_tokens(
        engine.template, engine.tokenize, build_prefix(offer_for(admin).listing)
    )
    kid = prefix_tokens(engine.template, engine.tokenize, build_prefix(offer_for(guest).listing))
    before = engine.evaluated_total
    assert engine.warm(grown_up.tokens, cuts=grown_up.cuts)
    assert engine.evaluated_total - before == len(grown_up.tokens)
    before = engine.evaluated_total
    assert engine.warm(kid.tokens, cuts=kid.cuts)
    assert engine.evaluated_total - before == len(kid.tokens) - kid.cuts[0]
    assert not engine.warm(kid.tokens, cuts=kid.cuts)  # already there


def _engine(path: Path, folder: Path, disk_mb: int = 64) -> LlamaEngine:
    return LlamaEngine(
        EngineSettings(path, context_length=8192, snapshot_dir=folder, snapshot_disk_mb=disk_mb)
    )


def test_snapshots_survive_a_restart(tiny_qwen35_gguf: Path, tmp_path: Path) -> None:
    folder = tmp_path / "snapshots"
    engine = _engine(tiny_qwen35_gguf, folder)
    try:
        rendered = prompt(engine, offer_for(admin), "turn on the kitchen light")
        engine.warm(rendered.tokens[: rendered.prefix_length], cuts=rendered.cuts)
        fresh = engine.evaluate_fresh(rendered.tokens)
    finally:
        engine.close()
    assert len(list(folder.glob(f"*{SUFFIX}"))) == 2  # shared part, whole prefix

    restarted = _engine(tiny_qwen35_gguf, folder)
    try:
        completion = restarted.complete(rendered.tokens, rendered.cuts, None, 1)
        assert completion.prefix_source == "snapshot"
        assert completion.evaluated_tokens == len(rendered.tokens) - rendered.prefix_length
        assert restarted.prefixes.loaded_from_disk == 1
        logits = restarted.next_token_logits(rendered.tokens, rendered.cuts)
        assert np.allclose(logits, fresh, atol=5e-3)
    finally:
        restarted.close()


def test_damaged_and_foreign_files_are_ignored_and_rebuilt(
    tiny_qwen35_gguf: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "snapshots"
    engine = _engine(tiny_qwen35_gguf, folder)
    rendered = prompt(engine, offer_for(admin), "hi")
    try:
        engine.warm(rendered.tokens[: rendered.prefix_length], cuts=rendered.cuts)
        store = engine.prefixes.store
        assert store is not None
        whole = store.path(PrefixCache.key(rendered.tokens[: rendered.prefix_length]))
        shared = store.path(PrefixCache.key(rendered.tokens[: rendered.cuts[0]]))
    finally:
        engine.close()
    damaged = bytearray(whole.read_bytes())
    damaged[-10] ^= 0xFF
    whole.write_bytes(bytes(damaged))
    shared.write_bytes(b"GGUF not a snapshot at all")

    restarted = _engine(tiny_qwen35_gguf, folder)
    try:
        completion = restarted.complete(rendered.tokens, rendered.cuts, None, 1)
        assert completion.prefix_source == "fresh"  # neither file was loaded
        assert restarted.prefixes.loaded_from_disk == 0
        assert whole.read_bytes() != bytes(damaged) and whole.stat().st_size > 100  # rebuilt
    finally:
        restarted.close()

    # Another model's snapshot under this model's name: its identity does not match.
    other_model = write_model(tmp_path / "other.gguf", TINY_QWEN35, seed=7, merges=prompt_merges())
    other_folder = tmp_path / "other-snapshots"
    other = _engine(other_model, other_folder)
    try:
        other_rendered = prompt(other, offer_for(admin), "hi")
        assert other_rendered.tokens == rendered.tokens  # same tokenizer, other weights
        other.warm(other_rendered.tokens[: other_rendered.prefix_length], cuts=other_rendered.cuts)
        assert other.prefixes.store is not None
        foreign = other.prefixes.store.path(
            PrefixCache.key(rendered.tokens[: rendered.prefix_length])
        )
    finally:
        other.close()
    whole.write_bytes(foreign.read_bytes())
    third = _engine(tiny_qwen35_gguf, folder)
    try:
        completion = third.complete(rendered.tokens, rendered.cuts, None, 1)
        assert completion.prefix_source == "shared"  # the (valid) shared file, not the foreign one
        assert third.prefixes.loaded_from_disk == 1
    finally:
        third.close()


def test_the_snapshot_folder_keeps_within_its_cap(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path, "identity", cap_bytes=8_000)  # room for two files
    snapshots = [
        Snapshot(bytes([n]) * 3000, np.arange(n, n + 100, dtype=np.intc)) for n in range(3)
    ]
    keys = [PrefixCache.key(s.tokens) for s in snapshots]
    for n in (0, 1):
        store.save(keys[n], snapshots[n])
        time.sleep(0.02)  # distinct modification times
    assert store.load(keys[0]) is not None  # used: now the most recent
    time.sleep(0.02)
    store.save(keys[2], snapshots[2])
    assert sum(size for _, size in store.files()) <= 8_000
    assert store.load(keys[1]) is None  # the least recently used went
    loaded = store.load(keys[0])
    assert loaded is not None and loaded.state == snapshots[0].state
    assert store.load(keys[2]) is not None
