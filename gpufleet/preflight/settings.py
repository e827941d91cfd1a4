"""What a stack declares for the launch and fit rules (GF-FIT-*), passed to them as policy config.

- `gpufleet:quotas` (stack config): quotas by `cloud:region`, each a mapping of quota code to its value
  (vCPUs; Tencent Cloud instances) or `{file: PATH}`, a file the cloud's CLI wrote (`aws service-quotas
  list-service-quotas --service-code ec2 --output json`, `aliyun ecs DescribeAccountAttributes`, `tccli
  cvm DescribeAccountQuota`: `gpufleet.preflight.answers` reads each), or a mapping of code to number;
- `gpufleet:images` (stack config): image ids mapped to their architecture (`x86_64`, `arm64`), for
  GF-FIT-003: ids say nothing offline (`ami-0123...`, Tencent `img-...`); `file: PATH` (or a list of
  paths) reads what `aws ec2 describe-images`, `aliyun ecs DescribeImages` or `tccli cvm DescribeImages`
  printed;
- `gpufleet:fleet` `pools.<name>.fit`: the pool's workload fit, for GF-FIT-004 and GF-FIT-005;
- `gpufleet:fleet` `budget.instance_ceiling`: the hourly ceiling per instance, for GF-FIT-006, in the
  budget's currency, for every GPU class of the stack's environment.

A policy config that already sets a key keeps it; quotas add up site by site, the stack's figure for a
code it declares winning.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

QUOTA_POLICY = "gpu-quota-covers-max-size"
IMAGE_POLICY = "image-architecture-matches-type"
FIT_POLICIES = ("gpu-memory-fits-workload", "distributed-pool-network")
CEILING_POLICY = "instance-price-under-ceiling"


class QuotaFileError(ValueError):
    """A quota file named in `gpufleet:quotas` cannot be read; the message names it."""


def _config_object(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    if isinstance(value, Mapping) and set(value) == {"value"}:
        return _config_object(value["value"])
    return value


def _numbers(data: Mapping[Any, Any]) -> dict[str, float]:
    return {
        str(k): float(v) for k, v in data.items() if isinstance(v, int | float) and not isinstance(v, bool)
    }


def _commands(attribute: str) -> list[str]:
    """Each cloud's CLI command (QUOTA_COMMAND or IMAGES_COMMAND in gpufleet/preflight/<cloud>.py)."""
    from gpufleet.components.clouds import cloud_parts, part_values

    return list(part_values(cloud_parts("gpufleet.preflight"), attribute).values())


def read_quota_file(path: Path) -> dict[str, float]:
    """Quota code -> value from a file the cloud's CLI wrote (`aws service-quotas list-service-quotas
    --service-code ec2 --output json`, `aliyun ecs DescribeAccountAttributes --RegionId R`, `tccli cvm
    DescribeAccountQuota --region R`), or from a plain JSON mapping of code to number."""
    from gpufleet.preflight.answers import any_quotas

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise QuotaFileError(f"{path}: cannot read the quota file: {exc}") from None
    found = any_quotas(data)
    if found is not None:
        return found
    if isinstance(data, Mapping):
        return _numbers(data)
    commands = "".join(f"`{command}`, " for command in _commands("QUOTA_COMMAND"))
    raise QuotaFileError(f"{path}: expected the JSON of {commands}or a mapping of quota code to number")


def declared_quotas(config: Mapping[str, Any], root: Path | None = None) -> dict[str, dict[str, float]]:
    """The stack's `gpufleet:quotas`, files read relative to `root`, the project directory (without a
    root, the entries naming files are left to a caller that knows it)."""
    value = _config_object(config.get("gpufleet:quotas"))
    out: dict[str, dict[str, float]] = {}
    if not isinstance(value, Mapping):
        return out
    for site, codes in value.items():
        if isinstance(codes, Mapping) and "file" in codes:
            if root is None:
                continue  # files are the caller's to read: it knows the project directory
            path = Path(str(codes["file"]))
            out[str(site)] = read_quota_file(path if path.is_absolute() else root / path)
        elif isinstance(codes, Mapping):
            out[str(site)] = {
                str(k): float(v)
                for k, v in codes.items()
                if isinstance(v, int | float) and not isinstance(v, bool)
            }
    return out


def _read_image_file(path: Path) -> dict[str, str]:
    from gpufleet.preflight.answers import image_arches

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise QuotaFileError(f"{path}: cannot read the image file: {exc}") from None
    found = image_arches(data)
    if found is None:
        commands = [f"`{command}`" for command in _commands("IMAGES_COMMAND")]
        raise QuotaFileError(f"{path}: expected the JSON of {', '.join(commands[:-1])} or {commands[-1]}")
    return found


def declared_images(config: Mapping[str, Any], root: Path | None = None) -> dict[str, str]:
    """The stack's `gpufleet:images`: image id -> x86_64 | arm64, files read relative to `root`.
    An architecture other than those two is a `QuotaFileError` naming the entry and the allowed values."""
    from gpufleet.preflight.answers import normal_arch

    value = _config_object(config.get("gpufleet:images"))
    out: dict[str, str] = {}
    if not isinstance(value, Mapping):
        return out
    for key, arch in value.items():
        if key == "file":
            if root is None:
                continue
            for name in arch if isinstance(arch, list) else [arch]:
                path = Path(str(name))
                out.update(_read_image_file(path if path.is_absolute() else root / path))
            continue
        normal = normal_arch(arch)
        if normal is None:
            raise QuotaFileError(
                f"gpufleet:images.{key}: architecture must be one of x86_64, arm64, got {arch!r}"
            )
        out[str(key)] = normal
    return out


def _fleet(config: Mapping[str, Any]) -> Mapping[str, Any]:
    fleet = _config_object(config.get("gpufleet:fleet"))
    return fleet if isinstance(fleet, Mapping) else {}


def declared_fits(config: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    pools = _fleet(config).get("pools")
    if not isinstance(pools, Mapping):
        return {}
    return {
        str(name): dict(pool["fit"])
        for name, pool in pools.items()
        if isinstance(pool, Mapping) and isinstance(pool.get("fit"), Mapping)
    }


def declared_ceiling(config: Mapping[str, Any]) -> tuple[str, float, str] | None:
    """(environment, amount, currency) of the spec's `budget.instance_ceiling`."""
    fleet = _fleet(config)
    budget = fleet.get("budget")
    if not isinstance(budget, Mapping):
        return None
    amount = budget.get("instance_ceiling")
    env = fleet.get("environment")
    if not isinstance(amount, int | float) or isinstance(amount, bool) or not isinstance(env, str):
        return None
    return env, float(amount), str(budget.get("currency") or "USD")


def _entry(config: Mapping[str, Any], policy: str) -> dict[str, Any]:
    entry = config.get(policy)
    return {"enforcementLevel": entry} if isinstance(entry, str) else dict(entry or {})


def with_stack_settings(
    policy_config: Mapping[str, Any] | None,
    stack_config: Mapping[str, Any],
    root: Path | None = None,
    *,
    looked_up: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, Any]:
    """`policy_config` with the stack's quotas, fits, images and ceiling merged in (see the module);
    `looked_up` are the images the program's lookups answered (image id -> {arch, from}), below what
    the stack declares."""
    merged: dict[str, Any] = dict(policy_config or {})
    quotas = declared_quotas(stack_config, root)
    if quotas:
        entry = _entry(merged, QUOTA_POLICY)
        given = entry.get("quotas")
        given = given if isinstance(given, Mapping) else {}
        combined = {str(site): dict(codes) for site, codes in given.items() if isinstance(codes, Mapping)}
        for site, codes in quotas.items():
            combined.setdefault(site, {}).update(codes)
        entry["quotas"] = combined
        merged[QUOTA_POLICY] = entry
    images: dict[str, Any] = {image: dict(found) for image, found in (looked_up or {}).items()}
    images.update(declared_images(stack_config, root))
    if images:
        entry = _entry(merged, IMAGE_POLICY)
        given = entry.get("images")
        entry["images"] = {**images, **(given if isinstance(given, Mapping) else {})}
        merged[IMAGE_POLICY] = entry
    fits = declared_fits(stack_config)
    if fits:
        for policy in FIT_POLICIES:
            entry = _entry(merged, policy)
            if entry.get("pools") is None:
                entry["pools"] = fits
                merged[policy] = entry
    ceiling = declared_ceiling(stack_config)
    if ceiling is not None:
        env, amount, currency = ceiling
        entry = _entry(merged, CEILING_POLICY)
        from gpufleet.policies.fit.instance_ceiling import RULE

        ceilings = dict(entry.get("instance_ceiling") or RULE.defaults()["instance_ceiling"])
        ceilings[env] = {"*": amount, "currency": currency}
        entry["instance_ceiling"] = ceilings
        merged[CEILING_POLICY] = entry
    return merged
