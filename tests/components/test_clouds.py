"""The cloud registry (gpufleet.components.clouds) is the one declaration of the clouds: every list,
legend and per-cloud map elsewhere agrees with it, and no module restates the list."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from gpufleet.components import clouds
from gpufleet.components.clouds import CLOUDS, PROFILES

ROOT = Path(__file__).resolve().parents[2]


def test_profiles_are_keyed_by_their_own_key_and_letters_are_unique() -> None:
    assert CLOUDS == ("aws", "alicloud", "tencentcloud")
    assert all(key == profile.key for key, profile in PROFILES.items())
    letters = [p.letter for p in PROFILES.values()] + [clouds.KUBERNETES_LETTER]
    assert len(set(letters)) == len(letters)
    assert typing.get_args(clouds.Cloud) == CLOUDS
    assert clouds.CHINA_CLOUDS == ("alicloud", "tencentcloud")


@pytest.mark.parametrize("key", CLOUDS)
def test_each_profile_is_consistent(key: str) -> None:
    profile = PROFILES[key]  # type: ignore[index]
    assert profile.region_key == f"{key}:region"
    assert profile.owns(f"{key}:some/type:Type") and not profile.owns(f"{key}x:some/type:Type")
    assert clouds.of_type(f"{key}:some/type:Type") is profile
    assert clouds.by_sdk_package(profile.sdk_package) is profile
    assert clouds.by_letter(profile.letter) is profile
    assert profile.workload_region_env and profile.region_envs and profile.credential_envs
    assert clouds.profile(key) is profile


def test_lookups_refuse_what_is_not_a_cloud() -> None:
    assert clouds.of_type("kubernetes:apps/v1:Deployment") is None
    assert clouds.as_cloud("kubernetes") is None and clouds.as_cloud("aws") == "aws"
    with pytest.raises(KeyError, match="known: aws, alicloud, tencentcloud"):
        clouds.profile("gcp")


def test_rules_legend_is_the_registry() -> None:
    legend = re.search(r"^Clouds: (.*)\.$", (ROOT / "docs/rules.md").read_text(encoding="utf-8"), re.M)
    assert legend is not None
    assert (
        legend.group(1) == clouds.letters_legend() == "A AWS, L Alibaba Cloud, T Tencent Cloud, K Kubernetes"
    )
    from gpufleet.policies.rule import CLOUD_LETTERS
    from gpufleet.policies.rule import CLOUDS as RULE_CLOUDS

    letters = dict(pair.split(" ", 1) for pair in legend.group(1).split(", "))
    assert set(letters) == set(CLOUD_LETTERS)
    assert (*CLOUDS, clouds.KUBERNETES) == RULE_CLOUDS
    assert {CLOUD_LETTERS[p.letter] for p in PROFILES.values()} == set(CLOUDS)


def test_every_per_cloud_table_covers_exactly_the_registry() -> None:
    from gpufleet import mocks
    from gpufleet.checkov import export, sdk_schema
    from gpufleet.components.catalog import CLOUDS as CATALOG_CLOUDS
    from gpufleet.components.catalog.regions import CLOUD_NAMES, REGIONS
    from gpufleet.components.links import LINKS
    from gpufleet.components.pools.userdata import REGION_ENVS
    from gpufleet.components.sites import REGION_CONFIG_KEYS, SITES
    from gpufleet.components.spec.links import LINK_CLOUDS
    from gpufleet.components.spec.pool import Pool
    from gpufleet.policies.audit.trail_per_cloud import AUDITED_CLOUDS
    from gpufleet.policies.cost.taggable import CLOUDS as TAGGABLE_CLOUDS

    for table in (SITES, LINKS, REGIONS, CLOUD_NAMES, REGION_ENVS, REGION_CONFIG_KEYS, mocks.DEFAULT_REGIONS):
        assert tuple(table) == CLOUDS
    assert tuple(export.PROVIDERS) == tuple(sdk_schema.SDK_PACKAGES) == CLOUDS
    assert CATALOG_CLOUDS == LINK_CLOUDS == AUDITED_CLOUDS == TAGGABLE_CLOUDS == CLOUDS
    assert typing.get_args(Pool.model_fields["cloud"].annotation) == CLOUDS


def test_standalone_copies_agree_with_the_registry() -> None:
    """The worker runs on instances without the components, and `gpufleet new` keeps its own tuple for
    now: their copies must still say what the registry says."""
    from gpufleet import new
    from gpufleet.worker import __main__ as worker

    assert worker.CLOUDS == CLOUDS
    assert {p.key: p.workload_region_env for p in PROFILES.values()} == worker.REGION_ENVS
    assert tuple(p.region_key for p in PROFILES.values()) == new._REGION_KEYS


# Module-level restatements of the cloud list or its display names, outside the registry.
_RESTATED = re.compile(
    r'^\w+\s*(:[^=]*)?=\s*\(\s*"aws",\s*"alicloud",\s*"tencentcloud"'
    r'|Literal\["aws",\s*"alicloud"'
    r'|"tencentcloud":\s*"Tencent Cloud"'
    r'|"tencentcloud":\s*"tencentcloud_iac_pulumi"',
    re.M,
)
# Copies the test above checks instead (kept standalone on purpose, or owned by other work).
_ALLOWED = {"components/clouds.py", "gpufleet/worker/__main__.py"}


def test_no_module_restates_the_cloud_list() -> None:
    found = []
    for folder in ("components", "policies", "gpufleet"):
        for path in (ROOT / folder).rglob("*.py"):
            rel = path.relative_to(ROOT).as_posix()
            if rel in _ALLOWED or rel.startswith(("gpufleet/components/", "gpufleet/policies/")):
                continue
            for match in _RESTATED.finditer(path.read_text(encoding="utf-8")):
                found.append(f"{rel}: {match.group(0)}")
    assert found == []


def test_default_and_account_clouds_are_registered_and_used() -> None:
    from gpufleet import stacklist
    from gpufleet.components.spec.pool import Pool

    assert clouds.DEFAULT_CLOUD == clouds.ACCOUNT_CLOUD == "aws"
    assert Pool.model_fields["cloud"].default == clouds.DEFAULT_CLOUD
    # A pool without `cloud` runs on the default cloud; an account baseline adds the account cloud.
    assert stacklist.spec_clouds({"pools": {"gpu": {}}}) == {"aws"}
    assert stacklist.stack_clouds({"gpufleet:account": {}}) == ("aws",)


@pytest.mark.parametrize("key", CLOUDS)
def test_each_cloud_has_its_mocks_and_invokes_modules(key: str) -> None:
    """The engine finds a cloud's offline answers by its key: `gpufleet/mocks/<key>.py` answers its
    resources, `gpufleet/invokes/<key>.py` its invokes, each invoke a token of that cloud's provider."""
    import importlib

    from gpufleet.invokes import INVOKES
    from gpufleet.mocks import FleetMocks

    profile = PROFILES[key]  # type: ignore[index]
    own = importlib.import_module(f"gpufleet.invokes.{key}").INVOKES
    assert own and all(profile.owns(token) for token in own)
    assert {t: a for t, a in INVOKES.items() if profile.owns(t)} == own
    assert callable(importlib.import_module(f"gpufleet.mocks.{key}").resource_id)
    # A resource of the cloud gets its id from the cloud's module, not the generic `<name>-<hex>`.
    from pulumi.runtime.mocks import MockResourceArgs

    token = {
        "aws": "aws:ec2/vpc:Vpc",
        "alicloud": "alicloud:vpc/network:Network",
        "tencentcloud": "tencentcloud:Vpc/instance:Instance",
    }[key]
    args = MockResourceArgs(typ=token, name="net", inputs={}, provider=None, resource_id=None, custom=True)
    resource_id, _outputs = FleetMocks({f"{key}:region": profile.default_region}).new_resource(args)
    assert resource_id is not None and resource_id.startswith("vpc-")


def test_analyzer_names_each_clouds_distribution() -> None:
    from gpufleet.analyzer_inputs import _PROVIDER_DISTRIBUTIONS

    for profile in PROFILES.values():
        assert _PROVIDER_DISTRIBUTIONS[profile.type_prefix] == profile.sdk_distribution
    assert _PROVIDER_DISTRIBUTIONS[clouds.KUBERNETES] == "pulumi-kubernetes"


def test_each_cloud_declares_its_billed_types_with_its_own_tokens() -> None:
    from gpufleet.cost.billed import BILLED

    assert tuple(BILLED) == CLOUDS
    for key, billed in BILLED.items():
        tokens = [
            *billed.nat_gateways,
            *billed.vpn_connections,
            *billed.dedicated_interfaces,
            *billed.volumes,
            *billed.schedules,
        ]
        assert billed.nat_gateways and billed.vpn_connections and billed.volumes
        assert all(PROFILES[key].owns(token) for token in tokens), key


def test_each_cloud_declares_where_its_vpn_keeps_its_algorithms() -> None:
    from gpufleet.vpn_crypto import VPN_BY_CLOUD

    assert tuple(VPN_BY_CLOUD) == CLOUDS
    for key, vpn in VPN_BY_CLOUD.items():
        assert PROFILES[key].owns(vpn.token)
        assert [label for label, _ in vpn.paths] == ["ike", "enc", "integrity", "dh", "pfs"]
        assert len(vpn.second_tunnel) in (0, len(vpn.paths))


def test_each_cloud_declares_how_its_buckets_are_read() -> None:
    from gpufleet.cost.buckets import BUCKETS, CLOUD_OF_BUCKET, READERS

    assert tuple(READERS) == CLOUDS
    for key, reader in READERS.items():
        assert reader.buckets and all(PROFILES[key].owns(token) for token in reader.buckets)
        assert all(CLOUD_OF_BUCKET[token] == key for token in reader.buckets)
    assert len(BUCKETS) == len(set(BUCKETS)) == len(CLOUD_OF_BUCKET)
