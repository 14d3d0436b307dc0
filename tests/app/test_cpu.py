"""The CPU check that runs before the model is downloaded or llama.cpp is loaded."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from botpsy_agent.app.config import parse_options
from botpsy_agent.app.cpu import cpu_flags, cpu_problem
from botpsy_agent.app.startup import ResolveError, resolve_model

HASWELL = "processor\t: 0\nflags\t\t: fpu sse4_2 avx avx2 fma f16c bmi2 aes\n"
GEMINI_LAKE = "processor\t: 0\nflags\t\t: fpu sse4_1 sse4_2 aes rdrand\n"
PI4 = "processor\t: 0\nFeatures\t: fp asimd evtstrm crc32 cpuid\nCPU implementer\t: 0x41\n"


def test_a_capable_cpu_passes() -> None:
    assert cpu_flags(HASWELL) >= {"avx2", "fma"}
    assert cpu_problem("x86_64", HASWELL) is None
    assert cpu_problem("aarch64", PI4) is None


def test_a_cpu_without_avx2_is_named_before_it_crashes() -> None:
    assert cpu_problem("x86_64", GEMINI_LAKE) == (
        "this CPU lacks avx, avx2, fma, f16c, bmi2, which this app's model runtime needs on "
        "x86_64 (x86-64 CPUs from Intel Haswell / AMD Zen on); see the app's documentation"
    )


def test_other_architectures_and_unknown_layouts() -> None:
    assert cpu_problem("armv7l", PI4) == (
        "this app runs on x86-64 (amd64) and ARM64 (aarch64), not on armv7l"
    )
    assert cpu_problem("x86_64", "model name: something\n") is None  # cannot tell: let it try


async def test_start_up_stops_on_such_a_cpu_before_downloading_anything(tmp_path: Path) -> None:
    settings = parse_options(
        {"model": "Q8_0"}, config_dir=tmp_path / "config", data_dir=tmp_path / "data"
    )
    lacking = cpu_problem("x86_64", GEMINI_LAKE)
    async with aiohttp.ClientSession() as session:  # nothing may be asked of the network
        with pytest.raises(ResolveError) as err:
            await resolve_model(settings, session, cpu_check=lambda: lacking)
    assert err.value.lines == (f"model: {lacking}",)
    assert not (tmp_path / "config").exists()  # no models folder, no download begun
