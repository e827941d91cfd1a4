"""docs/rules.md is the registry and the rule modules rendered; it must never drift from them."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest
from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.docs import (
    REGENERATE,
    RuleDocError,
    default_rules_markdown,
    render_rules_markdown,
    rule_anchor,
    rule_doc_url,
    rule_notes,
)
from gpufleet.evaluate import Finding, StackResult
from gpufleet.policies.registry import default_registry
from gpufleet.policies.rule import GfPolicy, GfResourcePolicy, Rule
from gpufleet.report import render_markdown, render_sarif
from tests.cli.helpers import invoke

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "rules.md"
DOC_URL = "https://github.com/gpufleet/gpufleet/blob/main/docs/rules.md"


def section(text: str, rule_id: str) -> str:
    """The text of one rule's section: from its heading to the next heading of any level."""
    start = text.index(f"\n### {rule_id}\n") + 1
    ends = [i for i in (text.find("\n### ", start + 1), text.find("\n## ", start + 1)) if i != -1]
    return text[start : min(ends, default=len(text))]


def test_checked_in_reference_matches_the_code() -> None:
    expected = default_rules_markdown()
    actual = REFERENCE.read_text(encoding="utf-8") if REFERENCE.exists() else ""
    assert actual == expected, (
        f"docs/rules.md is out of date with the policy pack; regenerate it from the repository root "
        f"with `{REGENERATE}` (in the project's .venv) and commit the result"
    )


def test_every_rule_has_one_anchored_section_and_a_summary_row() -> None:
    text = default_rules_markdown()
    policies = list(default_registry())
    assert len(policies) == 59
    assert "## Summary (59 rules)\n" in text
    for policy in policies:
        rule = policy.rule
        assert text.count(f"\n### {rule.id}\n") == 1, rule.id
        assert f"| [{rule.id}](#{rule.id.lower()}) | `{policy.name}` |" in text, rule.id
        body = section(text, rule.id)
        assert body.startswith(f"### {rule.id}\n\n**`{policy.name}`**: "), rule.id
        assert f"| severity | {rule.severity.value} |" in body
        assert f"| enforcement | {rule.enforcement.value} (default;" in body
        # The module docstring (what is judged per cloud) is in the rule's own section, minus the
        # first line that only restates the rule.
        assert rule_notes(policy) in body, rule.id
        assert f"\n{rule.id}: " not in body, rule.id


def test_sections_are_grouped_by_family_in_catalogue_order() -> None:
    text = default_rules_markdown()
    titles = [
        "Storage",
        "KMS keys",
        "Access",
        "IAM",
        "Audit",
        "Network",
        "Cost",
        "Kubernetes",
        "Resilience",
        "Operability",
    ]
    positions = [text.index(f"\n## {title}\n") for title in titles]
    assert positions == sorted(positions)
    assert positions[0] > text.index("\n## Summary (59 rules)\n")
    storage, kms = positions[0], positions[1]
    assert storage < text.index("\n### GF-STOR-008\n") < kms < text.index("\n### GF-KMS-001\n") < positions[2]


def test_sections_carry_the_metadata_of_the_rule() -> None:
    text = default_rules_markdown()
    retention = section(text, "GF-AUD-002")
    assert "| clouds | AWS, Alibaba Cloud, Tencent Cloud |" in retention
    assert "| not applicable to | Kubernetes |" in retention
    assert (
        "| config key | type | default |\n|---|---|---|\n| `min_days` | integer, minimum 1 | `180` |"
        in retention
    )
    assert "| nearest checkov ids | CKV_AWS_338 |" in retention
    # Retention follows the audit into the bucket it is delivered to: a join across the stack.
    assert "| kind | stack policy (joins resources across the stack) |" in retention
    tags = section(text, "GF-COST-001")
    assert "| kind | resource policy (judges one resource at a time) |" in tags
    assert '| `required` | array of string | `["project", "team", "cost-center", "env"]` |' in tags
    assert "not applicable to" not in tags  # all four clouds
    kms = section(text, "GF-KMS-002")
    assert "| not applicable to | Alibaba Cloud, Tencent Cloud, Kubernetes |" in kms
    assert "No configuration." in kms
    assert (
        "| reference | <https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-overview.html> |"
        in kms
    )
    assert "| kind | stack policy (joins resources across the stack) |" in section(text, "GF-ACC-002")


def test_plain_text_is_escaped_but_code_spans_are_kept() -> None:
    text = default_rules_markdown()
    broad = section(text, "GF-IAM-003")
    assert "Aliyun\\*FullAccess, Qcloud\\*FullAccess" in broad
    assert (
        "| [GF-IAM-003](#gf-iam-003) | `no-broad-managed-policies` | A L T | mandatory | critical |" in text
    )
    byok = section(text, "GF-STOR-002")
    assert "`data-classification: restricted`" in byok  # a code span, left as written
    kms_rotation = section(text, "GF-KMS-001")
    assert "(RSA\\_\\*, EC\\_\\*)" in kms_rotation


# -- the generator on rules built here ------------------------------------------------------------


def _sample_policy(rule_id: str, description: str = "Sample rule.") -> GfResourcePolicy:
    def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
        return None

    return GfResourcePolicy(
        Rule(
            id=rule_id,
            name=f"sample-{rule_id.lower()}",
            description=description,
            clouds=("aws",),
            enforcement=EnforcementLevel.ADVISORY,
            severity=Severity.LOW,
            remediation="Use arn:aws:iam::<account>:root, not [*].",
            url="",
            config={"limit": {"type": "integer", "minimum": 2, "default": 3}},
        ),
        validate,
    )


def _as_module(monkeypatch: pytest.MonkeyPatch, name: str, doc: str | None, policy: GfPolicy) -> None:
    module = types.ModuleType(name, doc)
    module.POLICY = policy  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, name, module)


def test_a_rule_renders_from_its_metadata_and_module_docstring(monkeypatch: pytest.MonkeyPatch) -> None:
    policy = _sample_policy("GF-STOR-951", "Grants `s3:*` to Aliyun*FullAccess")
    doc = "GF-STOR-951: sample.\n\n    - AWS: `aws:s3/bucket:Bucket` with `acl` set.\n    Unknown keys defer."
    _as_module(monkeypatch, "gpufleet.policies.storage.sample_doc_rule", doc, policy)
    text = render_rules_markdown([policy])
    assert text.startswith("# gpufleet rules reference\n")
    assert "## Summary (1 rules)\n\n**Storage**\n" in text
    assert text.endswith(
        "### GF-STOR-951\n\n"
        "**`sample-gf-stor-951`**: Grants `s3:*` to Aliyun\\*FullAccess\n\n"
        "| | |\n|---|---|\n"
        "| clouds | AWS |\n"
        "| not applicable to | Alibaba Cloud, Tencent Cloud, Kubernetes |\n"
        "| enforcement | advisory (default; set per rule in `policy-config.json`) |\n"
        "| severity | low |\n"
        "| kind | resource policy (judges one resource at a time) |\n"
        "| nearest checkov ids | none |\n"
        "| reference | none |\n\n"
        "| config key | type | default |\n|---|---|---|\n| `limit` | integer, minimum 2 | `3` |\n\n"
        "**Judges** (the resource types its findings are about): not declared on the policy: the notes "
        "below say which resources it judges on each cloud.\n\n"
        "**Remediation.** Use arn:aws:iam::\\<account>:root, not \\[\\*\\].\n\n"
        "- AWS: `aws:s3/bucket:Bucket` with `acl` set.\nUnknown keys defer.\n"
    )


def test_a_rule_module_without_a_docstring_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    policy = _sample_policy("GF-NET-951")
    _as_module(monkeypatch, "gpufleet.policies.network.sample_undocumented", None, policy)
    with pytest.raises(
        RuleDocError, match=r"GF-NET-951 .*policies\.network\.sample_undocumented has no docstring"
    ):
        render_rules_markdown([policy])


def test_a_policy_outside_any_rule_module_is_refused() -> None:
    with pytest.raises(RuleDocError, match=r"GF-NET-952 \(sample-gf-net-952\): no imported policies"):
        render_rules_markdown([_sample_policy("GF-NET-952")])


# -- the command and the reports that link to the reference ---------------------------------------


def test_rules_command_prints_the_reference() -> None:
    run = invoke("rules", "--format", "markdown")
    assert (run.exit_code, run.stderr) == (0, "")
    assert run.stdout == default_rules_markdown()


def test_rules_command_filters_the_reference() -> None:
    run = invoke("rules", "--format", "markdown", "--family", "kms")
    assert run.exit_code == 0
    assert "## Summary (2 rules)\n" in run.stdout
    headings = [line for line in run.stdout.splitlines() if line.startswith("### ")]
    assert headings == ["### GF-KMS-001", "### GF-KMS-002"]


def test_rules_command_names_markdown_among_its_formats() -> None:
    run = invoke("rules", "--format", "html")
    assert (run.exit_code, run.stdout, run.stderr) == (
        2,
        "",
        "error: --format 'html' is not a rules format; allowed: text, json, markdown\n",
    )


def _result() -> list[StackResult]:
    urn = "urn:pulumi:dev::gpufleet::aws:s3/bucket:Bucket::ckpt"
    common = {"engine": "crossguard", "urn": urn, "resource_type": "aws:s3/bucket:Bucket", "remediation": "x"}
    known = Finding(
        rule_id="GF-STOR-001", policy="bucket-customer-managed-key", enforcement="mandatory",
        severity="high", message="uses AES256", **common,
    )  # fmt: skip
    foreign = Finding(
        rule_id="GF-STOR-999", policy="retired-rule", enforcement="advisory",
        severity="low", message="old", **common,
    )  # fmt: skip
    return [StackResult(stack="dev", project="gpufleet", resources=1, violations=[known, foreign])]


def test_pr_comment_links_rules_to_their_section_of_the_reference() -> None:
    assert rule_anchor("GF-STOR-001") == "gf-stor-001"
    assert rule_doc_url("GF-STOR-001") == f"{DOC_URL}#gf-stor-001"
    pack = [default_registry().get("GF-STOR-001")]
    text = render_markdown(_result(), pack)
    assert f"| [GF-STOR-001]({DOC_URL}#gf-stor-001) `bucket-customer-managed-key` |" in text
    # A rule the evaluated pack does not define has no section to link to.
    assert "| GF-STOR-999 `retired-rule` |" in text


def test_sarif_keeps_the_provider_help_uri_and_links_the_reference() -> None:
    pack = [default_registry().get("GF-STOR-001")]
    rules = json.loads(render_sarif(_result(), pack))["runs"][0]["tool"]["driver"]["rules"]
    stor = next(rule for rule in rules if rule["id"] == "GF-STOR-001")
    assert stor["helpUri"] == "https://docs.aws.amazon.com/AmazonS3/latest/userguide/UsingKMSEncryption.html"
    assert stor["help"]["markdown"].endswith(
        f"\n\n[GF-STOR-001 in the rules reference]({DOC_URL}#gf-stor-001)"
    )
    retired = next(rule for rule in rules if rule["id"] == "GF-STOR-999")
    assert "rules reference" not in retired["help"]["markdown"]
