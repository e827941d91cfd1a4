"""The rules reference (docs/rules.md), rendered from the policy registry and the rule modules.

Everything on the page comes from the code: each policy's catalogue metadata (`policy.rule`) and the
docstring of the module that implements it, which says what the rule judges per cloud, what it does not
apply to and how it treats values it cannot know. The checked-in page is compared with this output in
the tests, so it cannot drift from the pack; regenerate it with `REGENERATE`.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping
from types import ModuleType
from typing import Any

from pulumi_policy import ResourceValidationPolicy

from gpufleet.components import clouds
from gpufleet.policies.rule import CLOUD_LETTERS, CLOUDS, FAMILIES, GfPolicy

RULES_DOC = "docs/rules.md"
RULES_DOC_URL = f"https://github.com/gpufleet/gpufleet/blob/main/{RULES_DOC}"
REGENERATE = f"gpufleet rules --format markdown > {RULES_DOC}"

CLOUD_NAMES = {**clouds.CLOUD_NAMES, clouds.KUBERNETES: clouds.KUBERNETES_NAME}
FAMILY_TITLES = {
    "storage": "Storage",
    "kms": "KMS keys",
    "access": "Access",
    "iam": "IAM",
    "audit": "Audit",
    "network": "Network",
    "cost": "Cost",
    "k8s": "Kubernetes",
    "resilience": "Resilience",
    "ops": "Operability",
    "deploy": "Deployability",
    "fit": "Launch and fit",
}


class RuleDocError(ValueError):
    """A policy cannot be documented: its module is not found or has no docstring."""


def rule_anchor(rule_id: str) -> str:
    """`GF-STOR-001` -> `gf-stor-001`: the anchor GitHub derives from the heading `### GF-STOR-001`."""
    return rule_id.lower()


def rule_doc_url(rule_id: str) -> str:
    """The rule's section in the published rules reference (absolute, so it works in PR comments).
    `GPUFLEET_DOCS_URL` points the links at a fork or a pinned commit (the PR workflow sets it)."""
    base = os.environ.get("GPUFLEET_DOCS_URL") or RULES_DOC_URL
    return f"{base}#{rule_anchor(rule_id)}"


def rule_module(policy: GfPolicy) -> ModuleType:
    """The `policies.<family>.<rule>` module whose `POLICY` is this policy object."""
    for name, module in sorted(sys.modules.items()):
        if name.startswith("gpufleet.policies.") and getattr(module, "POLICY", None) is policy:
            return module
    raise RuleDocError(
        f"{policy.rule.id} ({policy.rule.name}): no imported policies.<family>.<rule> module has this "
        "policy as its POLICY; each rule lives in its own module"
    )


def rule_notes(policy: GfPolicy) -> str:
    """The rule module's docstring, without its first paragraph when that only restates the rule."""
    module = rule_module(policy)
    doc = inspect.cleandoc(module.__doc__ or "")
    if not doc:
        raise RuleDocError(
            f"{policy.rule.id} ({policy.rule.name}): module {module.__name__} has no docstring; it must say "
            "what the rule judges per cloud, what it does not apply to, and how unknown values are handled"
        )
    paragraphs = doc.split("\n\n")
    if paragraphs[0].startswith(f"{policy.rule.id}:"):
        paragraphs = paragraphs[1:]
    return _outside_code("\n\n".join(paragraphs).strip(), _NOTE_SPECIALS)


_CODE_SPAN = re.compile(r"(`[^`]*`)")
_PLAIN_SPECIALS = re.compile(r"([\\*_<\[\]])")
# Docstrings are Markdown already (`-` bullets, code spans); only a bare `*` (`Attach*Policy`) or a `_`
# at a word's edge (`RSA_*`) would start emphasis there.
_NOTE_SPECIALS = re.compile(r"\*|(?<!\w)_|_(?!\w)")


def _outside_code(text: str, escape: re.Pattern[str]) -> str:
    parts = _CODE_SPAN.split(text)
    return "".join(
        part if index % 2 else escape.sub(lambda m: "\\" + m.group(0), part)
        for index, part in enumerate(parts)
    )


def plain(text: str) -> str:
    """Plain text (descriptions, remediation steps) made literal in Markdown; code spans are kept."""
    return _outside_code(text, _PLAIN_SPECIALS)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").strip()


def _clouds(clouds: Iterable[str]) -> str:
    return ", ".join(CLOUD_NAMES.get(cloud, cloud) for cloud in clouds)


def _schema_text(schema: Mapping[str, Any]) -> str:
    kind = str(schema.get("type", "any"))
    if kind == "array" and isinstance(schema.get("items"), Mapping):
        kind = f"array of {schema['items'].get('type', 'any')}"
    limits = [
        f"{word} {schema[key]}"
        for key, word in (("minimum", "minimum"), ("maximum", "maximum"), ("enum", "one of"))
        if key in schema
    ]
    return ", ".join([kind, *limits])


def _config_table(config: Mapping[str, Mapping[str, Any]]) -> list[str]:
    lines = ["| config key | type | default |", "|---|---|---|"]
    for key, schema in config.items():
        default = json.dumps(schema.get("default"), ensure_ascii=False)
        lines.append(f"| `{key}` | {_cell(_schema_text(schema))} | `{_cell(default)}` |")
    return lines


def _kind(policy: GfPolicy) -> str:
    if isinstance(policy, ResourceValidationPolicy):
        return "resource policy (judges one resource at a time)"
    return "stack policy (joins resources across the stack)"


JUDGES_UNDECLARED = "not declared on the policy: the notes below say which resources it judges on each cloud"


def judged_types(policy: GfPolicy) -> dict[str, list[str]] | None:
    """The type tokens the policy declares it judges (its `judges`), by cloud; None when it declares none
    or judges by a predicate or prefix only."""
    judges = getattr(policy, "judges", None)
    if judges is None or not judges.tokens:
        return None
    by_cloud: dict[str, list[str]] = {}
    for token in sorted(judges.tokens):
        by_cloud.setdefault(token.split(":", 1)[0], []).append(token)
    return {cloud: by_cloud[cloud] for cloud in sorted(by_cloud, key=_cloud_order)}


def _cloud_order(cloud: str) -> tuple[int, str]:
    return (CLOUDS.index(cloud) if cloud in CLOUDS else len(CLOUDS), cloud)


def judges_lines(policy: GfPolicy) -> list[str]:
    """**Judges.**: the resource types the rule's findings are about, per cloud, from its `judges`."""
    judges = getattr(policy, "judges", None)
    head = "**Judges** (the resource types its findings are about)"
    if judges is None:
        return [f"{head}: {JUDGES_UNDECLARED}.", ""]
    lines = [f"{head}:", ""]
    for cloud, tokens in (judged_types(policy) or {}).items():
        lines.append(f"- {CLOUD_NAMES.get(cloud, cloud)}: {', '.join(f'`{t}`' for t in tokens)}")
    lines.extend(f"- every `{prefix}` type" for prefix in judges.prefixes)
    if judges.predicate is not None:
        lines.append(f"- {judges.description or 'the types its predicate accepts (see the notes below)'}")
    return [*lines, ""]


def rule_section(policy: GfPolicy) -> str:
    rule = policy.rule
    lines = [
        f"### {rule.id}",
        "",
        f"**`{policy.name}`**: {plain(rule.description)}",
        "",
        "| | |",
        "|---|---|",
        f"| clouds | {_clouds(rule.clouds)} |",
    ]
    outside = [cloud for cloud in CLOUDS if cloud not in rule.clouds]
    if outside:
        lines.append(f"| not applicable to | {_clouds(outside)} |")
    lines += [
        f"| enforcement | {rule.enforcement.value} (default; set per rule in `policy-config.json`) |",
        f"| severity | {rule.severity.value} |",
        f"| kind | {_kind(policy)} |",
        f"| nearest checkov ids | {', '.join(rule.checkov) if rule.checkov else 'none'} |",
        f"| reference | <{rule.url}> |" if rule.url else "| reference | none |",
        "",
    ]
    if rule.config:
        lines += [*_config_table(rule.config), ""]
    else:
        lines += ["No configuration.", ""]
    lines += judges_lines(policy)
    lines += [f"**Remediation.** {plain(rule.remediation)}", "", rule_notes(policy), ""]
    return "\n".join(lines)


def _summary(policies: list[GfPolicy]) -> list[str]:
    letters = {cloud: letter for letter, cloud in CLOUD_LETTERS.items()}
    lines = [
        "| id | policy | clouds | enforcement | severity | checks |",
        "|---|---|---|---|---|---|",
    ]
    for policy in policies:
        rule = policy.rule
        clouds = " ".join(letters[cloud] for cloud in rule.clouds)
        lines.append(
            f"| [{rule.id}](#{rule_anchor(rule.id)}) | `{policy.name}` | {clouds} | {rule.enforcement.value} "
            f"| {rule.severity.value} | {_cell(plain(rule.description))} |"
        )
    return lines


_INTRO = """\
# gpufleet rules reference

Every rule of the gpufleet CrossGuard policy pack, as implemented. The same pack runs offline
(`gpufleet check`) and in `pulumi preview --policy-pack policies`; `gpufleet rules` lists the rules in a
terminal and `gpufleet rules --format json` gives their config schemas.

This page is built from the code: the catalogue metadata on each policy object and the docstring of the
module that implements it. Do not edit it by hand; after changing a rule, run

```sh
{regenerate}
```

Enforcement and config come from `policy-config.json` (Pulumi's `--policy-pack-config` format) and
can be overridden per run (`gpufleet check --enforce GF-COST-004=advisory --set GF-AUD-002.min_days=365`).
A rule judges only resources of the clouds listed for it.

**Values unknown at preview.** A value the engine cannot know before deployment (an ARN or id of a
resource not yet created, a document built with `apply()` from one) never makes a rule pass and never
blocks a preview: the rule reports every violation it could judge, and each resource whose decisive
value is unknown gets one advisory "could not be judged at preview" naming the field. The Pulumi engine
shows that as its "can't run policy during preview" diagnostic and judges the resource during
`pulumi up`, when the value is known. The rule sections below say where a rule treats unknown or
unset values differently (for example a key reference that counts as set).

Clouds: {legend}.
"""


def engine_section() -> str:
    """GF-ENGINE-001: what the offline engine itself reports, apart from the pack's rules."""
    from gpufleet.findings import (
        OPAQUE_DESCRIPTION,
        OPAQUE_POLICY,
        OPAQUE_REMEDIATION,
        OPAQUE_RULE_ID,
        OPAQUE_SEVERITY,
    )

    # Each cloud's remote components (REMOTE_COMPONENTS_DOC in gpufleet/<cloud>.py), first in the list.
    parts = clouds.cloud_parts("gpufleet")
    remote = "".join(f"{names}, " for names in clouds.part_values(parts, "REMOTE_COMPONENTS_DOC").values())
    return "\n".join(
        [
            "## Engine checks",
            "",
            "Not rules of the policy pack: `gpufleet check` reports these about the offline run itself.",
            "",
            f"### {OPAQUE_RULE_ID}",
            "",
            f"**`{OPAQUE_POLICY}`**: {plain(OPAQUE_DESCRIPTION)}",
            "",
            "| | |",
            "|---|---|",
            f"| clouds | {_clouds(CLOUDS)} |",
            "| enforcement | advisory (`gpufleet check --strict` or `--enforce GF-ENGINE-001=mandatory` "
            "makes it mandatory; `all=LEVEL` leaves it as it is) |",
            f"| severity | {OPAQUE_SEVERITY} |",
            "| kind | engine check (offline runs only: under `pulumi preview` the provider plugin builds the "
            "children and the pack judges them) |",
            "",
            f"**Remediation.** {plain(OPAQUE_REMEDIATION)}",
            "",
            f"A component is not inspected when its registration is remote ({remote}"
            "Kubernetes Helm v4 `Chart`, YAML v2 `ConfigFile` and `ConfigGroup`, kustomize v2 "
            "`Directory`), when it is a Helm v3 `Chart` or a kustomize v1 `Directory` (rendered by `helm "
            "template` or kustomize inside the provider plugin), a Helm v3 `Release` (the provider "
            "installs the chart's objects without registering them), or any component of a provider "
            "package that registered no children. Kubernetes YAML v1 `ConfigFile` and `ConfigGroup` are "
            "expanded offline: the SDK parses the manifests in the program, and the engine answers the "
            "`kubernetes:yaml:decode` call it makes, so their objects are judged like any other.",
            "",
            "The text, JSON (`opaque` under each stack), SARIF (run property `opaqueComponents`), JUnit "
            "(testsuite property `gpufleet.not-inspected`) and Markdown reports list every component "
            "that was not inspected, with the reason.",
            "",
        ]
    )


# Definitions several rules share, rendered once after the rule sections from their modules' docstrings
# (the rule sections name the module): (title, module, the families whose rules use it).
SHARED_DEFINITIONS = (
    ("Kubernetes pod templates", "gpufleet.policies.k8s.templates", ("k8s", "network")),
    ("Kubernetes GPU requests", "gpufleet.policies.k8s.workloads", ("k8s",)),
    ("Weekly schedules", "gpufleet.policies.cost._weekly", ("cost",)),
)


def shared_sections(families: Iterable[str]) -> list[str]:
    """The shared definitions the given rule families use, one section each."""
    used = set(families)
    sections = []
    for title, name, users in SHARED_DEFINITIONS:
        if not used & set(users):
            continue
        doc = inspect.cleandoc(importlib.import_module(name).__doc__ or "")
        sections.append(f"### {title} (`{name}`)\n\n{_outside_code(doc, _NOTE_SPECIALS)}\n")
    return sections


def render_rules_markdown(policies: Iterable[GfPolicy], *, engine: bool = False) -> str:
    """The whole rules reference: a summary table, then one section per rule, grouped by family;
    with `engine`, the engine's own checks at the end."""
    ordered = sorted(policies, key=lambda policy: policy.rule.id)
    by_family: dict[str, list[GfPolicy]] = {family: [] for family in FAMILIES.values()}
    for policy in ordered:
        by_family[policy.rule.family].append(policy)
    parts = [
        _INTRO.format(regenerate=REGENERATE, legend=clouds.letters_legend()),
        f"## Summary ({len(ordered)} rules)\n",
    ]
    for family, members in by_family.items():
        if not members:
            continue
        parts.append(f"**{FAMILY_TITLES[family]}**\n")
        parts.append("\n".join(_summary(members)) + "\n")
    for family, members in by_family.items():
        if not members:
            continue
        parts.append(f"## {FAMILY_TITLES[family]}\n")
        parts.extend(rule_section(policy) for policy in members)
    shared = shared_sections(family for family, members in by_family.items() if members)
    if shared:
        parts.append(
            "## Shared definitions\n\nWhat several rules read the same way; their sections name the module.\n"
        )
        parts.extend(shared)
    if engine:
        parts.append(engine_section())
    return "\n".join(parts).rstrip("\n") + "\n"


def default_rules_markdown() -> str:
    """The rules reference for the default registry: the content of docs/rules.md."""
    from gpufleet.policies.registry import default_registry

    return render_rules_markdown(default_registry(), engine=True)
