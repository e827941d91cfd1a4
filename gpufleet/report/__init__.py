"""Reports of policy findings: JSON (the DESIGN.md contract), text, SARIF 2.1.0, JUnit XML and Markdown.

Every renderer takes the list of StackResult of one `gpufleet check` run. Renderers that describe rules
(SARIF rules[], JUnit test cases, Markdown links) take the evaluated policies too; without them they fall
back to what the findings themselves carry.

One module per format (jsondoc, text, sarif, junit, markdown), what they share in `model`, rendering and
writing several at once in `writing`, the `gpufleet rules` catalogue in `rules`. Every public name is
importable from `gpufleet.report`.
"""

from __future__ import annotations

from gpufleet.report.jsondoc import render_json
from gpufleet.report.junit import render_junit
from gpufleet.report.markdown import GITHUB_COMMENT_LIMIT, render_markdown
from gpufleet.report.model import (
    ENGINE_FAMILY,
    ENGINE_RULE,
    FILE_NAMES,
    FORMATS,
    REPORT_VERSION,
    RuleInfo,
    cost_summary,
    exit_code,
    opaque_lines,
    resource_label,
    rule_infos,
    stack_error,
    stack_file_of,
    tool_version,
)
from gpufleet.report.rules import engine_rule_row, render_rules, rules_table
from gpufleet.report.sarif import (
    FINGERPRINT_KEY,
    GITHUB_MAX_RESULTS,
    INFORMATION_URI,
    SARIF_SCHEMA,
    SARIF_VERSION,
    SECURITY_SEVERITY,
    build_sarif,
    render_sarif,
)
from gpufleet.report.text import render_text
from gpufleet.report.writing import parse_formats, render, write_reports

__all__ = [
    "ENGINE_FAMILY",
    "ENGINE_RULE",
    "FILE_NAMES",
    "FINGERPRINT_KEY",
    "FORMATS",
    "GITHUB_COMMENT_LIMIT",
    "GITHUB_MAX_RESULTS",
    "INFORMATION_URI",
    "REPORT_VERSION",
    "SARIF_SCHEMA",
    "SARIF_VERSION",
    "SECURITY_SEVERITY",
    "RuleInfo",
    "build_sarif",
    "cost_summary",
    "engine_rule_row",
    "exit_code",
    "opaque_lines",
    "parse_formats",
    "render",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_rules",
    "render_sarif",
    "render_text",
    "resource_label",
    "rule_infos",
    "rules_table",
    "stack_error",
    "stack_file_of",
    "tool_version",
    "write_reports",
]
