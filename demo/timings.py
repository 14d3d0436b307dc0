"""The demo's lines for an answer's `timings`: the turn's parts, then each model step's."""

from __future__ import annotations

from typing import Any

_PARTS = ("queue", "fast_path", "model", "checks", "ha")


def turn_line(timings: dict[str, Any]) -> str:
    """ "7312 ms (queue 1 ms, fast path 3 ms, model 7100 ms, …)": the parts that took time."""
    parts = [
        f"{name.replace('_', ' ')} {timings[f'{name}_ms']:.0f} ms"
        for name in _PARTS
        if timings.get(f"{name}_ms")
    ]
    total = f"{timings.get('total_ms', 0):.0f} ms"
    return total + (f" ({', '.join(parts)})" if parts else "")


def step_lines(timings: dict[str, Any]) -> list[str]:
    """One line per model step: where its time went and what it generated."""
    return [_step_line(step) for step in timings.get("steps", [])]


def _step_line(step: dict[str, Any]) -> str:
    prompt = (
        f"prompt {step['prompt_ms']:.0f} ms ({step['prefix_source']}: "
        f"{step['evaluated_tokens']} of {step['prompt_tokens']} tokens evaluated"
    )
    if step["restore_ms"]:
        prompt += f", restore {step['restore_ms']:.0f} ms"
    if step["build_ms"]:
        prompt += f", prefix build {step['build_ms']:.0f} ms"
    generated = step["sampled_tokens"] + step["forced_tokens"]
    return (
        f"step {step['step']}: {step['total_ms']:.0f} ms = wait {step['wait_ms']:.0f} + "
        f"render {step['render_ms']:.0f} + grammar {step['grammar_ms']:.0f} + {prompt}) + "
        f"generation {step['generation_ms']:.0f} ms ({generated} tokens: "
        f"{step['sampled_tokens']} sampled, {step['forced_tokens']} forced, "
        f"{step['decode_steps']} decode steps, {step['ms_per_token']:.0f} ms a token)"
    )
