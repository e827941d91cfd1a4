"""What the Kubernetes API server accepts as label keys, label values and object names.

The rules are the API machinery's validation (k8s.io/apimachinery/pkg/util/validation, as the
"Labels and Selectors" and "Object Names and IDs" pages of kubernetes.io state them):

- a label key is a qualified name: an optional prefix, a DNS subdomain of at most 253 characters,
  and ``/``, then a name of at most 63 characters matching ``([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]``.
  A ``:`` is nowhere allowed, so a cloud tag key such as ``gpufleet:stack`` is refused as a label key;
- a label value is empty or at most 63 characters matching the same pattern as a key's name;
- a DNS-1123 label (namespace names) is at most 63 lower-case letters, digits and ``-``, starting and
  ending with a letter or digit; a DNS-1123 subdomain (most other object names, node names) is at most
  253 characters of such labels joined by ``.``.

The cloud tags the spec gives every resource become labels through :func:`tag_labels`: the project's own
tag keys (``gpufleet:<name>``) become ``gpufleet.io/<name>``, the prefix the project's labels already use.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

LABEL_NAME_MAX = 63
LABEL_PREFIX_MAX = 253
LABEL_VALUE_MAX = 63
DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_VALUE_BAD = re.compile(r"[^A-Za-z0-9_.-]+")
# The project's cloud tag keys (``gpufleet:stack``, ``gpufleet:pool``) and their label form.
TAG_PREFIX = "gpufleet:"
LABEL_PREFIX = "gpufleet.io/"


def dns1123_label_problem(name: str) -> str | None:
    """Why ``name`` is not a DNS-1123 label (a namespace name), or None."""
    if len(name) > DNS1123_LABEL_MAX:
        return f"{name!r} is {len(name)} characters, over {DNS1123_LABEL_MAX}"
    if not _DNS1123_LABEL.fullmatch(name):
        return (
            f"{name!r} is not lower-case letters, digits and '-', starting and ending with a letter or digit"
        )
    return None


def dns1123_subdomain_problem(name: str) -> str | None:
    """Why ``name`` is not a DNS-1123 subdomain (most object names), or None."""
    if len(name) > DNS1123_SUBDOMAIN_MAX:
        return f"{name!r} is {len(name)} characters, over {DNS1123_SUBDOMAIN_MAX}"
    if not _DNS1123_SUBDOMAIN.fullmatch(name):
        return (
            f"{name!r} is not lower-case letters, digits, '-' and '.', each part starting and ending "
            "with a letter or digit"
        )
    return None


def label_key_problem(key: str) -> str | None:
    """Why ``key`` is not a label key (a qualified name), or None."""
    prefix, slash, name = key.rpartition("/")
    if slash:
        if not prefix:
            return f"label key {key!r} has an empty prefix"
        problem = dns1123_subdomain_problem(prefix)
        if problem is not None:
            return f"label key {key!r}: its prefix {problem}"
    if len(name) > LABEL_NAME_MAX:
        return f"label key {key!r}: its name is {len(name)} characters, over {LABEL_NAME_MAX}"
    if not _NAME.fullmatch(name):
        return (
            f"label key {key!r}: its name must be letters, digits, '-', '_' and '.', starting and ending "
            "with a letter or digit (no ':')"
        )
    return None


def label_value_problem(value: str) -> str | None:
    """Why ``value`` is not a label value, or None."""
    if len(value) > LABEL_VALUE_MAX:
        return f"label value {value!r} is {len(value)} characters, over {LABEL_VALUE_MAX}"
    if value and not _NAME.fullmatch(value):
        return (
            f"label value {value!r} must be letters, digits, '-', '_' and '.', starting and ending with a "
            "letter or digit"
        )
    return None


def check_labels(labels: Mapping[str, str], where: str = "labels") -> dict[str, str]:
    """``labels`` as a dict, or ValueError naming every key and value the API server would refuse."""
    problems: list[str] = []
    for key, value in labels.items():
        problems.extend(p for p in (label_key_problem(key), label_value_problem(value)) if p is not None)
    if problems:
        raise ValueError(f"{where}: " + "; ".join(problems))
    return dict(labels)


def check_name(name: str, kind: str = "subdomain") -> str:
    """``name`` when it is a DNS-1123 ``kind`` ("label" or "subdomain"), else ValueError."""
    problem = dns1123_label_problem(name) if kind == "label" else dns1123_subdomain_problem(name)
    if problem is not None:
        raise ValueError(f"Kubernetes object name: {problem}")
    return name


def label_value(value: str) -> str:
    """Any text as a label value: other characters become '-', at most 63 characters, starting and
    ending with a letter or digit (possibly empty)."""
    cleaned = _VALUE_BAD.sub("-", value)[:LABEL_VALUE_MAX]
    return cleaned.strip("-_.")


def label_key(tag_key: str) -> str:
    """A cloud tag key as a label key: ``gpufleet:<name>`` becomes ``gpufleet.io/<name>``; any other key
    must already be a label key (the spec's cost tags are)."""
    key = LABEL_PREFIX + tag_key[len(TAG_PREFIX) :] if tag_key.startswith(TAG_PREFIX) else tag_key
    problem = label_key_problem(key)
    if problem is not None:
        raise ValueError(f"tag {tag_key!r} cannot be a Kubernetes label: {problem}")
    return key


def tag_labels(tags: Mapping[str, str]) -> dict[str, str]:
    """The cloud tags as labels (:func:`label_key`, :func:`label_value`); a tag whose value cleans to
    nothing is left out."""
    labels = {label_key(key): label_value(value) for key, value in tags.items()}
    return check_labels({key: value for key, value in labels.items() if value}, "tags as labels")
