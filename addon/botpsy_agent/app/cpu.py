"""Can this CPU run the image's llama.cpp build? Asked before llama.cpp is loaded.

The image's llama.cpp is built for a baseline per architecture (docs/decisions.md, the
portable build): on x86-64 it uses AVX2, FMA, F16C and BMI2. On a CPU without them
the library would die with "Illegal instruction" the moment it is loaded; checking
`/proc/cpuinfo` first turns that into a sentence the user can act on.
"""

from __future__ import annotations

from pathlib import Path
import platform
from typing import Final

REQUIRED_FLAGS: Final[dict[str, tuple[str, ...]]] = {
    "x86_64": ("sse4_2", "avx", "avx2", "fma", "f16c", "bmi2"),
    "aarch64": ("asimd",),
}
"""`/proc/cpuinfo` flag names the build needs, per `uname -m`."""


def cpu_flags(cpuinfo: str) -> set[str]:
    """The first CPU's feature flags in a `/proc/cpuinfo` text (x86 `flags`, ARM `Features`)."""
    for line in cpuinfo.splitlines():
        name, _, value = line.partition(":")
        if name.strip() in {"flags", "Features"}:
            return set(value.split())
    return set()


def cpu_problem(machine: str | None = None, cpuinfo: str | None = None) -> str | None:
    """None when the build runs here; otherwise what is missing, in one sentence."""
    machine = machine or platform.machine()
    required = REQUIRED_FLAGS.get(machine)
    if required is None:
        return f"this app runs on x86-64 (amd64) and ARM64 (aarch64), not on {machine}"
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None  # cannot tell; let llama.cpp try
    flags = cpu_flags(cpuinfo)
    if not flags:
        return None  # an unusual cpuinfo layout: cannot tell
    missing = [flag for flag in required if flag not in flags]
    if not missing:
        return None
    return (
        f"this CPU lacks {', '.join(missing)}, which this app's model runtime needs on "
        f"{machine} (x86-64 CPUs from Intel Haswell / AMD Zen on); see the app's documentation"
    )
