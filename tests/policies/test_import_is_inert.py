"""Importing the pack's modules never starts a policy server: only running policies/__main__.py does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_every_policy_module_returns_at_once() -> None:
    code = (
        "import importlib, pkgutil, policies\n"
        "for module in pkgutil.walk_packages(policies.__path__, 'gpufleet.policies.'):\n"
        "    importlib.import_module(module.name)\n"
        "from policies.registry import default_registry\n"
        "print(len(default_registry()))\n"
    )
    # A PolicyPack built on import would print a port and block until the timeout.
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "59"
