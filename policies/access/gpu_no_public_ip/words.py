"""What GF-ACC-005's findings expect, and the kinds of public address settings, shared by its cloud
modules."""

from __future__ import annotations

EXPECTED = "GPU instances get no public IP: keep them private behind NAT"
# a setting that assigns a public IP when truthy
BOOL = "bool"
# a bandwidth that assigns a public IP when above 0
BANDWIDTH = "bandwidth"
