"""Property: the ranges a link routes are accepted exactly when each is an IPv4 network of /8 or
narrower, none overlaps another and none overlaps the site's VPC (so no route is a default route and
no two routes share a name)."""

from __future__ import annotations

import ipaddress

from hypothesis import given
from hypothesis import strategies as st

from gpufleet.components.links.base import _range_problems, range_slug

VPC = ipaddress.IPv4Network("10.40.0.0/16")

networks = st.builds(
    lambda address, prefix: ipaddress.IPv4Network(f"{ipaddress.IPv4Address(address)}/{prefix}", strict=False),
    st.integers(min_value=0, max_value=2**32 - 1),
    st.integers(min_value=0, max_value=32),
)


@given(st.lists(networks, max_size=5))
def test_ranges_accepted_exactly_when_narrow_and_disjoint(nets: list[ipaddress.IPv4Network]) -> None:
    acceptable = all(net.prefixlen >= 8 and not net.overlaps(VPC) for net in nets) and all(
        not a.overlaps(b) for i, a in enumerate(nets) for b in nets[i + 1 :]
    )
    problems = _range_problems([str(net) for net in nets], str(VPC))
    assert (problems == []) == acceptable, (nets, problems)
    if acceptable:
        slugs = [range_slug(str(net)) for net in nets]
        assert len(set(slugs)) == len(slugs)
