"""The fleet's name for a stack: the prefix of every physical name the fleet makes.

Physical names (trail, log groups, key alias, the burst exporter's service account) derive from it, so
it must be unique per stack within an account and use only characters every cloud's names accept:
letters, digits and hyphens, lower case. ``infra/__main__.py`` names the fleet with it and ``gpufleet
new`` fills a template's ``{{ fleet_name }}`` with it, so a template can name what the fleet builds.
"""

from __future__ import annotations

import re

_NOT_NAME = re.compile(r"[^A-Za-z0-9-]+")


def fleet_name(stack: str) -> str:
    """``Lab_1`` -> ``gpufleet-lab-1``."""
    return _NOT_NAME.sub("-", f"gpufleet-{stack}").strip("-").lower()
