"""The pack's initial config under `pulumi preview --policy-pack policies` comes from policy-config.json."""

from __future__ import annotations

import json
from pathlib import Path

from pulumi_policy import EnforcementLevel

from gpufleet.policies.__main__ import initial_config
from gpufleet.policies.registry import default_registry


def test_the_engine_check_is_left_out_of_the_packs_config(tmp_path: Path) -> None:
    # GF-ENGINE-001 exists only offline: handing its entry to PolicyPack would configure a policy the
    # pack does not have. The pack's own entries, by id or by name, are kept.
    config = tmp_path / "policy-config.json"
    config.write_text(
        json.dumps(
            {
                "GF-ENGINE-001": {"enforcementLevel": "mandatory"},
                "component-not-inspected": "mandatory",
                "GF-STOR-001": "advisory",
                "log-retention-minimum": {"min_days": 365},
            }
        )
    )
    policies = list(default_registry())
    name = default_registry().get("GF-STOR-001").name
    assert initial_config(config, policies) == {
        name: EnforcementLevel.ADVISORY,
        "log-retention-minimum": {"min_days": 365},
    }


def test_the_waiver_settings_are_read_by_the_pack_not_handed_over_as_a_policy(tmp_path: Path) -> None:
    from gpufleet.policies.__main__ import waiver_settings
    from gpufleet.policies.waivers import Settings

    config = tmp_path / "policy-config.json"
    config.write_text(
        json.dumps({"waivers": {"allow_tags": True, "max_days": 30}, "GF-STOR-001": "advisory"})
    )
    name = default_registry().get("GF-STOR-001").name
    assert initial_config(config, list(default_registry())) == {name: EnforcementLevel.ADVISORY}
    assert waiver_settings(config) == Settings(allow_tags=True, max_days=30, file="policy-config.json")
    # Invalid or absent settings: the defaults, tags off.
    config.write_text(json.dumps({"waivers": {"allow_tags": "yes"}}))
    assert waiver_settings(config) == Settings()
    assert waiver_settings(tmp_path / "absent.json") == Settings()
