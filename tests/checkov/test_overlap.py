"""--explain-overlap: agreement between a GF rule and its nearest checkov checks, resource by resource."""

from __future__ import annotations

from gpufleet.checkov.overlap import explain, text_lines

A, B, C, D = "urn:a::sg-a", "urn:a::sg-b", "urn:a::sg-c", "urn:a::vm-d"


def test_each_resource_is_placed_once() -> None:
    (entry,) = explain(
        rules=[("GF-ACC-001", ("CKV_AWS_24", "CKV_AWS_25")), ("GF-COST-001", ())],
        violations=[("GF-ACC-001", A), ("GF-ACC-001", B), ("GF-ACC-001", D)],
        failed=[("CKV_AWS_24", A), ("CKV_AWS_25", C), ("CKV_AWS_8", D)],
        passed=[("CKV_AWS_24", B), ("CKV_AWS_25", B), ("CKV_AWS_24", C), ("CKV_AWS_24", "urn:a::sg-e")],
    )
    assert entry == {
        "rule_id": "GF-ACC-001",
        "checkov": ["CKV_AWS_24", "CKV_AWS_25"],
        "agree_fail": 1,  # A
        "agree_pass": 1,  # sg-e
        "gpufleet_only": [B],
        "checkov_only": [{"urn": C, "checks": ["CKV_AWS_25"]}],
        "not_judged_by_checkov": [D],  # CKV_AWS_8 is not one of the rule's checks
    }


def test_text_names_the_disagreements() -> None:
    entries = explain(
        [("GF-ACC-001", ("CKV_AWS_24",))], [("GF-ACC-001", B)], [("CKV_AWS_24", C)], [("CKV_AWS_24", B)]
    )
    assert text_lines(entries, lambda urn: urn.rsplit("::", 1)[-1]) == [
        "overlap with checkov (same resources):",
        "  GF-ACC-001 ~ CKV_AWS_24: 0 both fail, 0 both pass, 1 only gpufleet, 1 only checkov, "
        "0 not judged by checkov",
        "    only gpufleet: sg-b",
        "    only checkov (CKV_AWS_24): sg-c",
    ]


def test_rules_without_checkov_ids_or_judged_resources_are_left_out_of_the_text() -> None:
    entries = explain([("GF-KMS-001", ("CKV_AWS_7",))], [], [], [])
    assert entries[0]["agree_pass"] == 0
    assert text_lines(entries, str) == ["overlap with checkov (same resources):"]
