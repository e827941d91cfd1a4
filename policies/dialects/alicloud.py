"""The Alibaba Cloud RAM dialect: the IAM JSON keys with `Version: "1"`, `acs:<service>:...` resource
names, principals `{"RAM": [...]}` / `{"Service": [...]}` / `{"Federated": [...]}`, and the `acs:`
condition keys that pin a caller to an account. Operators are IAM's (`StringEquals`, ...)."""

from __future__ import annotations

from gpufleet.policies.dialects import ValueCheck, literal_start

PRINCIPAL_KINDS = {"ram": "RAM", "acs": "acs"}

LOWER_CASE_KEYS = False
VERSION: str | None = "1"

RESOURCE_PREFIX = "acs"
RESOURCE_NAME_FROM = 1

PINNING_KEYS: dict[str, ValueCheck] = {
    "acs:sourceaccount": lambda v: v.isdigit(),
    "acs:principalarn": literal_start,
}
