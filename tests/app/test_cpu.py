"""The CPU check that runs before llama.cpp is loaded."""

from __future__ import annotations

from botpsy_agent.cpu import cpu_flags, cpu_problem

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
