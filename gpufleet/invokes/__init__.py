"""Offline answers to invokes (`get_*` data sources and the Kubernetes YAML decoder).

Answers are plausible and deterministic, derived from the arguments; every value is synthetic. An invoke
without an answer here gets typed placeholders from its result type (`FleetMocks.call`).

This module names no cloud: each registered cloud (``components/clouds.py``) declares its answers as
``INVOKES`` in the module named by its key (``gpufleet/invokes/<key>.py``); the Kubernetes YAML
decoder, which answers with errors too, is in ``kubernetes.py``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from gpufleet.components.clouds import PROFILES
from gpufleet.invokes.base import Invoke
from gpufleet.invokes.images import looked_up_images
from gpufleet.invokes.kubernetes import YAML_DECODE, decode_yaml


def _cloud_invokes(key: str) -> Mapping[str, Invoke]:
    found: Mapping[str, Invoke] = importlib.import_module(f"{__name__}.{key}").INVOKES
    return found


INVOKES: dict[str, Invoke] = {
    token: answer for profile in PROFILES.values() for token, answer in _cloud_invokes(profile.key).items()
}

__all__ = ["INVOKES", "YAML_DECODE", "Invoke", "decode_yaml", "looked_up_images"]
