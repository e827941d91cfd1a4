"""The on-prem ranges a site's security group opens egress to when the site has a private link (the
same ranges the link routes: :attr:`components.sites.base.SitePlan.onprem_ranges`). Cloud-neutral, so
each cloud's network module imports it without another cloud's SDK."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence


def onprem_range_problems(ranges: Sequence[str]) -> list[str]:
    """Ranges a security group may open egress to for a private link: IPv4 networks of /8 or narrower."""
    problems: list[str] = []
    for text in ranges:
        try:
            net = ipaddress.IPv4Network(text)
        except ValueError:
            problems.append(f"onprem_ranges: {text!r} is not an IPv4 network like 10.60.0.0/16")
            continue
        if net.prefixlen < 8:
            problems.append(f"onprem_ranges: {net} is wider than /8: egress opens to on-prem ranges only")
    return problems
