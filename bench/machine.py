"""What machine the numbers came from: printed and stored with every result."""

from __future__ import annotations

import os
from pathlib import Path
import platform
from typing import Any


def describe() -> dict[str, Any]:
    cpu_model = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    meminfo = Path("/proc/meminfo")
    mem_gib = None
    if meminfo.exists():
        first = meminfo.read_text().splitlines()[0].split()
        mem_gib = round(int(first[1]) / 1024 / 1024, 1)
    return {
        "cpu_model": cpu_model,
        "logical_cpus": os.cpu_count(),
        "memory_gib": mem_gib,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
