"""The Tencent Cloud CAM dialect: lower-case keys (`version: "2.0"`, `statement`, `effect`, ...),
`qcs:<project>:<service>:...` resource names, principals `{"qcs": [...]}` / `{"service": [...]}`,
"anyone" written `qcs::cam::anyone:anyone`, the `qcs:` condition keys that pin a caller to an
account, and operators spelt `string_equal` / `string_like` / `for_any_value:`."""

from __future__ import annotations

from gpufleet.policies.dialects import ValueCheck

PRINCIPAL_KINDS = {"qcs": "qcs"}

LOWER_CASE_KEYS = True
VERSION: str | None = None

RESOURCE_PREFIX = "qcs"
RESOURCE_NAME_FROM = 1

# CAM's spelling of "everyone" carries no `*`.
ANYONE = frozenset({"qcs::cam::anyone:anyone", "qcs::cam::anyone"})

PINNING_KEYS: dict[str, ValueCheck] = {
    "qcs:uin": lambda v: v.isdigit(),
    "qcs:owner_uin": lambda v: v.isdigit(),
}
POSITIVE_OPERATORS = frozenset({"string_equal", "string_like"})
ANY_VALUE_PREFIX = "for_any_value:"
