"""The two top-level specs: `FleetSpec` (``gpufleet:fleet``) and `AccountBaselineSpec`
(``gpufleet:account``)."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from gpufleet.components import spec_limits as limits
from gpufleet.components.clouds import ACCOUNT_CLOUD, cloud_parts, profile
from gpufleet.components.spec.account import Account
from gpufleet.components.spec.addresses import fleet_overlaps
from gpufleet.components.spec.burst import Burst, burst_site_problem
from gpufleet.components.spec.checks import (
    _network_checks,
    _pool_name_checks,
    _raise_first,
    _usage_schedule_checks,
    _workload_checks,
)
from gpufleet.components.spec.links import Links
from gpufleet.components.spec.onprem import OnPrem
from gpufleet.components.spec.pool import Pool
from gpufleet.components.spec.settings import Access, Audit, Budget, Network, Storage
from gpufleet.components.spec.values import REQUIRED_COST_TAGS, _cross, _Model

# The account stack's regions are regions of the account's cloud (AWS): their name shape, said in
# messages (``spec/aws.py``).
_ACCOUNT = cloud_parts("gpufleet.components.spec")[ACCOUNT_CLOUD]
_REGION_NAME_RE: re.Pattern[str] = _ACCOUNT.REGION_NAME_RE
_REGION_NAMES: str = _ACCOUNT.REGION_NAMES


class FleetSpec(_Model):
    environment: Literal["dev", "staging", "prod"]
    tags: dict[str, str]
    budget: Budget
    storage: Storage = Storage()
    access: Access = Access()
    audit: Audit = Audit()
    network: Network = Network()
    account: Account = Account()
    pools: dict[str, Pool] = Field(min_length=1)
    onprem: OnPrem | None = None
    links: Links = Field(default_factory=dict, description="one private link per site, keyed cloud:region")
    burst: Burst | None = Field(default=None, description="None: every pool scales on its own queue")

    @field_validator("tags")
    @classmethod
    def _cost_tags_present(cls, value: dict[str, str]) -> dict[str, str]:
        missing = [tag for tag in REQUIRED_COST_TAGS if not value.get(tag)]
        if missing:
            raise ValueError(
                f"must contain the cost tags {', '.join(REQUIRED_COST_TAGS)}; missing: {', '.join(missing)}"
            )
        return value

    @model_validator(mode="after")
    def _consistent_tags(self) -> FleetSpec:
        found = limits.tag_checks(self.tags, self.environment)
        _raise_first([(f"tags{rel}", message) for rel, message in found])
        return self

    @model_validator(mode="after")
    def _pool_names(self) -> FleetSpec:
        found = _pool_name_checks(self.pools)
        if found:
            raise _cross(f"pools.{found[0][0]}: {found[0][1]}")
        return self

    @model_validator(mode="after")
    def _network_ranges(self) -> FleetSpec:
        # network.vpc_cidr is the AWS home's range: checked against the others only when AWS has pools.
        home = self.network.vpc_cidr if any(p.cloud == ACCOUNT_CLOUD for p in self.pools.values()) else None
        found = _network_checks(home, self.network.regions)
        _raise_first([(f"network.{path}", message) for path, message in found])
        return self

    @model_validator(mode="after")
    def _workload_routes(self) -> FleetSpec:
        for name, pool in self.pools.items():
            if pool.workload is not None:
                found = limits.workload_route_checks(
                    pool.workload.model_dump(),
                    self.network.egress,
                    self.network.subnet_ids,
                    pool.cloud,
                    pool.region,
                )
                if found:
                    raise _cross(f"pools.{name}.workload.{found[0][0]}: {found[0][1]}")
        return self

    @model_validator(mode="after")
    def _workload_readers(self) -> FleetSpec:
        joined = self.onprem is not None and self.onprem.scheduler is not None
        for name, pool in self.pools.items():
            workload = pool.workload.model_dump() if pool.workload is not None else None
            found = _workload_checks(
                pool.cloud, pool.queue.model_dump(exclude_unset=True), workload, joined, pool.region
            )
            _raise_first([(f"pools.{name}.{path}", message) for path, message in found])
        return self

    @model_validator(mode="after")
    def _usage_within_schedules(self) -> FleetSpec:
        for name, pool in self.pools.items():
            if pool.usage is not None and pool.off_hours is not None:
                found = _usage_schedule_checks(
                    pool.usage.model_dump(), pool.off_hours.model_dump(), self.environment
                )
                _raise_first([(f"pools.{name}.{path}", message) for path, message in found])
        return self

    @model_validator(mode="after")
    def _address_plan(self) -> FleetSpec:
        home = any(p.cloud == ACCOUNT_CLOUD for p in self.pools.values())
        found = fleet_overlaps(self.onprem, self.network, home=home)
        if found:
            raise ValueError(f"{found[0].field_a}: {found[0].message()}")
        return self

    @model_validator(mode="after")
    def _burst_sites(self) -> FleetSpec:
        # burst order: each listed site's cloud has pools (regions left to the stack are checked later).
        if self.burst is not None:
            for index, site in enumerate(self.burst.sites):
                problem = burst_site_problem(site, self.pools)
                if problem is not None:
                    raise ValueError(f"burst.order[{index}]: {problem}")
        return self

    @property
    def cost_tags(self) -> dict[str, str]:
        """The tags every taggable resource carries: the spec's tags plus ``env`` from the environment."""
        return {**self.tags, "env": self.tags.get("env", self.environment)}

    def pool_region(self, name: str, default: str) -> str:
        """The pool's region, or ``default`` (the stack's provider region) where the pool names none."""
        region = self.pools[name].region
        return region if region is not None else default

    def defaults_view(self) -> dict[str, Any]:
        """The whole spec with every default filled in, as plain data (for `gpufleet plan`)."""
        return self.model_dump(mode="json")


class AccountBaselineSpec(_Model):
    """``gpufleet:account``: the account-baseline stack (one per account), see components.account.aws."""

    tags: dict[str, str]
    budget: Budget
    audit: Audit = Audit()
    regions: list[str] = Field(
        default_factory=list,
        description=f"regions that get the per-region settings; none: {profile(ACCOUNT_CLOUD).region_key}",
    )
    session_log_retention_days: int = Field(
        default=180, ge=1, description="days Session Manager logs are kept"
    )
    service_linked_roles: Literal["create", "existing"] = "create"

    @field_validator("tags")
    @classmethod
    def _cost_tags_present(cls, value: dict[str, str]) -> dict[str, str]:
        missing = [tag for tag in REQUIRED_COST_TAGS if not value.get(tag)]
        if missing:
            raise ValueError(
                f"must contain the cost tags {', '.join(REQUIRED_COST_TAGS)}; missing: {', '.join(missing)}"
            )
        return value

    @field_validator("regions")
    @classmethod
    def _region_names(cls, value: list[str]) -> list[str]:
        bad = [r for r in value if not _REGION_NAME_RE.match(r)]
        if bad:
            raise ValueError(f"must list {_REGION_NAMES}, got {', '.join(map(repr, bad))}")
        if len(set(value)) != len(value):
            raise ValueError("must not list a region twice")
        return value

    @property
    def cost_tags(self) -> dict[str, str]:
        """The spec's tags plus ``env: shared`` unless given: the baseline serves every environment."""
        return {**self.tags, "env": self.tags.get("env", "shared")}
