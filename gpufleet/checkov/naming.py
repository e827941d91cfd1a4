"""Names between Pulumi and Terraform."""

from __future__ import annotations

import re

_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NOT_IDENT = re.compile(r"[^A-Za-z0-9_-]")


def snake_case(name: str) -> str:
    """`httpPutResponseHopLimit` -> `http_put_response_hop_limit`, `enableDnsHostnames` ->
    `enable_dns_hostnames`, `ipv6CidrBlock` -> `ipv6_cidr_block`, `kmsKeyID` -> `kms_key_id`."""
    return _BOUNDARY.sub("_", name).lower()


def tf_identifier(name: str) -> str:
    """A Terraform resource name for a Pulumi logical name: letters, digits, `_` and `-`, starting
    with a letter or `_`."""
    cleaned = _NOT_IDENT.sub("_", name) or "_"
    return cleaned if cleaned[0].isalpha() or cleaned[0] == "_" else f"_{cleaned}"
