"""What every cloud's key module writes on a BYOK key whose material the owner imports out of band."""

from __future__ import annotations

# The tag by which the fleet says a key's material was imported out of band (GF-OPS-005 reads it).
MATERIAL_TAG = "gpufleet:key-material"
