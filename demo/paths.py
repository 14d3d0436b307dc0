"""Where the demo keeps things: its HA config in the repo, run-time state in demo/run/."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType

DEMO = Path(__file__).resolve().parent
REPO = DEMO.parent
CONFIG = DEMO / "config"
RUN = Path(os.environ.get("BOTPSY_DEMO_RUN") or DEMO / "run")
"""Run-time state: HA's copied config and storage, logs, the app's data (not in git)."""
POLICY_TEMPLATE = DEMO / "policy.yaml"


def load_devices() -> ModuleType:
    """The demo home's device list (demo/config/custom_components/demo_home/home.py)."""
    path = CONFIG / "custom_components" / "demo_home" / "home.py"
    spec = importlib.util.spec_from_file_location("demo_home_devices", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
