"""GF-DEPLOY-002: objects the Kubernetes API server refuses (what `pulumi preview` prints from its dry run).

A real `pulumi preview` sends every Kubernetes object to the API server for validation; the offline
engine has no cluster. For every `kubernetes:<group>/<version>:<Kind>` resource the rule applies the API
server's own checks (`policies/deploy/kubernetes.json`, each with its source, at the Kubernetes version
the pulumi-kubernetes pin targets):

- `metadata.name`: set (unless `generateName` is), and a DNS-1123 subdomain, or a DNS-1123 label
  (Namespace), a DNS-1035 label (Service) or a path segment name (RBAC kinds) as the kind requires;
  `metadata.namespace` a DNS-1123 label;
- label keys (`metadata.labels`, a pod template's labels, `spec.selector.matchLabels`): qualified names,
  an optional DNS-subdomain prefix of at most 253 characters and `/`, then a name of at most 63 matching
  `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`; label values at most 63 characters of the same form, or
  empty; annotation keys qualified names, all annotations together at most 256 KiB;
- containers (and init containers) of every pod spec: a name (DNS-1123 label, unique in the pod), an image
  for a bare Pod (a workload's template may leave it to admission), `containerPort` 1-65535, port names
  IANA_SVC_NAME (at most 15 lowercase letters, digits and hyphens, with a letter, no hyphen at an end or
  twice in a row) and unique;
- the required fields of the common built-in kinds (a Deployment's, DaemonSet's and StatefulSet's
  `spec.selector` and `spec.template`, matching labels; a NetworkPolicy's `spec.podSelector`; a
  PriorityClass's `value`, at most 1,000,000,000; RBAC role references and subjects; a TLS Secret's keys;
  ConfigMap and Secret keys);
- custom resources of the CRD groups the table knows (KEDA `keda.sh`, Kueue `kueue.x-k8s.io`): the
  apiVersion and kind exist, and the CRD's required spec fields are set. Other custom resources are judged
  on their metadata only.

A patch resource (`...Patch`) is judged on the values it gives; it need not carry required fields. Every
refusal is its own finding naming the field, the value and what is allowed. Unknown values are skipped;
secret values are judged but shown as `[secret]`. Not waivable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.policies.deploy._values import Found, locate, plain, present, show
from gpufleet.policies.props import is_unknown
from gpufleet.policies.rule import GfResourcePolicy, Judges, Rule

RULE = Rule(
    id="GF-DEPLOY-002",
    name="kubernetes-api-valid",
    description=(
        "Kubernetes objects pass the API server's validation: names, namespaces, label and annotation keys "
        "and values, containers and ports, required fields of built-in kinds and known CRDs."
    ),
    clouds=("kubernetes",),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Change the field the finding names to the form it states (the API server refuses the object "
        "otherwise): for a label key with `:` use a `prefix/name` key such as `gpufleet.io/stack`."
    ),
    url="https://kubernetes.io/docs/concepts/overview/working-with-objects/names/",
    waivable=False,
)

TABLE_FILE = Path(__file__).resolve().parent / "kubernetes.json"

DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
IANA_SVC_NAME = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?")
CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+")
ANNOTATIONS_LIMIT = 256 * 1024
# Provider resources that are not objects the API server validates (a Helm release installs a chart).
NOT_API_OBJECTS = frozenset({"helm.sh"})

NAME_FORMS = {
    "subdomain": "a DNS-1123 subdomain (at most 253 lowercase letters, digits, '-' and '.', starting and "
    "ending with a letter or digit)",
    "label": "a DNS-1123 label (at most 63 lowercase letters, digits and '-', starting and ending with a "
    "letter or digit)",
    "label1035": "a DNS-1035 label (at most 63 lowercase letters, digits and '-', starting with a letter and "
    "ending with a letter or digit)",
    "segment": "a path segment name (not '.' or '..', no '/' or '%')",
}
QUALIFIED_FORM = (
    "an optional DNS-1123 subdomain prefix of at most 253 characters and '/', then a name of at most 63 "
    "characters matching ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
)
LABEL_VALUE_FORM = "empty, or at most 63 characters matching ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"


@cache
def kinds_table() -> Mapping[str, Any]:
    data: Mapping[str, Any] = json.loads(TABLE_FILE.read_text(encoding="utf-8"))
    return data


def parse_token(token: str) -> tuple[str, str, str, bool] | None:
    """(group, version, kind, is a patch) of a `kubernetes:` type token; None for other tokens."""
    if not token.startswith("kubernetes:") or token.count(":") != 2:
        return None
    _, module, kind = token.split(":")
    if "/" not in module:
        return None
    group, version = module.rsplit("/", 1)
    group = "" if group == "core" else group
    patch = kind.endswith("Patch")
    return group, version, kind[: -len("Patch")] if patch else kind, patch


def api_key(group: str, version: str, kind: str) -> str:
    return f"{group}/{version}/{kind}" if group else f"{version}/{kind}"


def valid_name(value: str, form: str) -> bool:
    if form == "segment":
        return value not in (".", "..") and "/" not in value and "%" not in value
    limit = 253 if form == "subdomain" else 63
    pattern = {"subdomain": DNS1123_SUBDOMAIN, "label": DNS1123_LABEL, "label1035": DNS1035_LABEL}[form]
    return len(value) <= limit and pattern.fullmatch(value) is not None


def qualified_name_problem(key: str) -> str | None:
    prefix, _, name = key.rpartition("/")
    if "/" in key and not prefix:
        return "its prefix before '/' is empty"
    if prefix and (len(prefix) > 253 or not DNS1123_SUBDOMAIN.fullmatch(prefix)):
        return "its prefix is not a DNS-1123 subdomain of at most 253 characters"
    if not name:
        return "its name part is empty"
    if len(name) > 63:
        return f"its name part is {len(name)} characters, more than 63"
    if not QUALIFIED_NAME.fullmatch(name):
        return (
            "its name part has a character other than letters, digits, '-', '_' and '.' "
            "or does not start and end with a letter or digit"
        )
    return None


def label_value_ok(value: str) -> bool:
    return value == "" or (len(value) <= 63 and QUALIFIED_NAME.fullmatch(value) is not None)


def _entries(found: Found) -> Iterator[tuple[str, Any, bool]]:
    value = found.value
    if isinstance(value, Mapping):
        for key, raw_item in value.items():
            item, secret = plain(raw_item)
            if not is_unknown(item):
                yield str(key), item, found.secret or secret


def _labels(found: Found, what: str) -> Iterator[str]:
    for key, value, secret in _entries(found):
        problem = qualified_name_problem(key)
        if problem:
            yield (
                f"{found.path} key {show(key)} is not a valid {what} key: {problem}; "
                f"allowed: {QUALIFIED_FORM}"
            )
        if isinstance(value, str) and not label_value_ok(value):
            shown = "[secret]" if secret else show(value)
            yield f"{found.path}[{show(key)}] is {shown}; allowed: {LABEL_VALUE_FORM}"


def _annotations(found: Found) -> Iterator[str]:
    total = 0
    for key, value, _ in _entries(found):
        problem = qualified_name_problem(key)
        if problem:
            yield (
                f"{found.path} key {show(key)} is not a valid annotation key: {problem}; "
                f"allowed: {QUALIFIED_FORM}"
            )
        total += len(key) + (len(value) if isinstance(value, str) else 0)
    if total > ANNOTATIONS_LIMIT:
        yield f"{found.path} total {total} bytes; allowed: at most {ANNOTATIONS_LIMIT} bytes (256 KiB)"


def _metadata(
    props: Any,
    prefix: str,
    spec: Mapping[str, Any] | None,
    patch: bool,
    top: bool,
    *,
    walks: dict[str, list[Found]] | None = None,
) -> Iterator[str]:
    meta = f"{prefix}metadata" if prefix else "metadata"
    if top:
        names = locate(props, f"{meta}.name", walks)
        form = spec.get("name") if spec is not None else None
        # A kind the table does not know may not be an API object at all (a Helm release): its
        # metadata is judged where given, never required.
        metadata, _ = plain(props.get("metadata") if isinstance(props, Mapping) else None)
        metadata = metadata if isinstance(metadata, Mapping) else {}
        named = present(metadata, "name") or present(metadata, "generateName")
        if spec is not None and not named and not patch:
            yield f"{meta}.name is required and not set"
        for found in names:
            if form and isinstance(found.value, str) and not valid_name(found.value, form):
                yield f"{found.path} is {found.quoted()}; allowed: {NAME_FORMS[form]}"
        for found in locate(props, f"{meta}.namespace", walks):
            if isinstance(found.value, str) and found.value and not valid_name(found.value, "label"):
                yield f"{found.path} is {found.quoted()}; allowed: {NAME_FORMS['label']}"
    for found in locate(props, f"{meta}.labels", walks):
        yield from _labels(found, "label")
    for found in locate(props, f"{meta}.annotations", walks):
        yield from _annotations(found)


def _pod_spec(
    props: Any, path: str, image_required: bool, walks: dict[str, list[Found]] | None = None
) -> Iterator[str]:
    for pod in locate(props, path, walks):
        if not isinstance(pod.value, Mapping):
            continue
        port_names: set[str] = set()
        container_names: set[str] = set()
        if not present(pod.value, "containers"):
            yield f"{pod.path}.containers is required and not set"
        for group in ("initContainers", "containers"):
            for container in locate(pod.value, f"{group}[]"):
                if isinstance(container.value, Mapping):
                    where = f"{pod.path}.{container.path}"
                    yield from _container(where, container.value, image_required, container_names)
                    for port in locate(container.value, "ports[]"):
                        if isinstance(port.value, Mapping):
                            yield from _port(f"{where}.{port.path}", port.value, port_names)


def _container(
    where: str, body: Mapping[str, Any], image_required: bool, container_names: set[str]
) -> Iterator[str]:
    """A container's name (a DNS label, unique in the pod: added to `container_names`) and image."""
    name, _ = plain(body.get("name"))
    if name is None:
        yield f"{where}.name is required and not set"
    elif isinstance(name, str):
        if not valid_name(name, "label"):
            yield f"{where}.name is {show(name)}; allowed: {NAME_FORMS['label']}"
        elif name in container_names:
            yield f"{where}.name is {show(name)}; allowed: a name no other container of the pod has"
        container_names.add(name)
    if image_required and not present(body, "image"):
        yield f"{where}.image is required and not set"


def _port(at: str, port: Mapping[str, Any], port_names: set[str]) -> Iterator[str]:
    """A container port's number and name (an IANA_SVC_NAME, unique in the pod: added to `port_names`)."""
    number, _ = plain(port.get("containerPort"))
    if number is None:
        yield f"{at}.containerPort is required and not set"
    elif isinstance(number, int | float) and not 1 <= number <= 65535:
        yield f"{at}.containerPort is {show(number)}; allowed: 1 to 65535"
    port_name, _ = plain(port.get("name"))
    if isinstance(port_name, str):
        if not iana_svc_name(port_name):
            yield (
                f"{at}.name is {show(port_name)}; allowed: an IANA_SVC_NAME (at most 15 "
                "lowercase letters, digits and '-', at least one letter, no "
                "'-' at either end "
                "or twice in a row)"
            )
        elif port_name in port_names:
            yield f"{at}.name is {show(port_name)}; allowed: a port name no other port of the pod has"
        port_names.add(port_name)


def iana_svc_name(value: str) -> bool:
    return (
        len(value) <= 15
        and IANA_SVC_NAME.fullmatch(value) is not None
        and "--" not in value
        and re.search(r"[a-z]", value) is not None
    )


def _required(props: Any, path: str, walks: dict[str, list[Found]] | None = None) -> Iterator[str]:
    parent, _, name = path.rpartition(".")
    owners: Sequence[Found] = (
        [Found("", plain(props)[0], False)] if not parent else locate(props, parent, walks)
    )
    for owner in owners:
        if isinstance(owner.value, Mapping) and not present(owner.value, name):
            where = f"{owner.path}.{name}" if owner.path else name
            yield f"{where} is required and not set"


def problems(resource_type: str, props: Any) -> Iterator[str]:
    parsed = parse_token(resource_type)
    if parsed is None:
        return
    group, version, kind, patch = parsed
    if group in NOT_API_OBJECTS:
        return
    data = kinds_table()
    key = api_key(group, version, kind)
    spec: Mapping[str, Any] | None = data["kinds"].get(key) or data["crds"].get(key)
    if spec is None and group in data["crdSources"]:
        known = sorted(k for k in data["crds"] if k.startswith(f"{group}/"))
        yield (
            f"apiVersion {group}/{version} kind {kind} is not served by the {group} CRDs; "
            f"known: {', '.join(known)}"
        )
        return
    # One walk of each path (and of each level of it) for the resource: the checks below share them.
    walks: dict[str, list[Found]] = {}
    yield from _metadata(props, "", spec, patch, True, walks=walks)
    spec = spec or {}
    for template in ("spec.template.", "spec.jobTemplate.spec.template.", "spec.jobTemplate."):
        yield from _metadata(props, template, spec, patch, False, walks=walks)
    for found in locate(props, "spec.selector.matchLabels", walks):
        yield from _labels(found, "label selector")
    if not patch:
        yield from _presence_problems(props, spec, walks)
    yield from _value_problems(props, spec, walks)
    if spec.get("podSpec"):
        yield from _pod_spec(props, spec["podSpec"], bool(spec.get("imageRequired")), walks)
    if spec.get("selectorMatchesTemplate"):
        yield from _selector_matches(props, walks)
    yield from _config_key_problems(props, spec, walks)
    secret_type, _ = plain(props.get("type") if isinstance(props, Mapping) else None)
    needed = spec.get("secretTypes", {}).get(secret_type) if isinstance(secret_type, str) else None
    if needed and not patch:
        yield from _secret_keys(props, secret_type, needed)


def _presence_problems(
    props: Any, spec: Mapping[str, Any], walks: dict[str, list[Found]] | None = None
) -> Iterator[str]:
    """The kind's required fields, and its fields of which at most one may be set."""
    for path in spec.get("required", ()):
        yield from _required(props, path, walks)
    for fields in spec.get("oneOf", ()):
        owner = plain(props)[0]
        given = [f for f in fields if list(locate(owner, f))]
        if len(given) > 1:
            yield f"{' and '.join(given)} cannot be set together; set one of them"


def _value_problems(
    props: Any, spec: Mapping[str, Any], walks: dict[str, list[Found]] | None = None
) -> Iterator[str]:
    """The kind's enumerated fields and fields with a maximum."""
    for path, allowed in spec.get("enums", {}).items():
        for found in locate(props, path, walks):
            if isinstance(found.value, str) and found.value not in allowed:
                yield f"{found.path} is {found.quoted()}; allowed: {', '.join(show(v) for v in allowed)}"
    for path, maximum in spec.get("maxValue", {}).items():
        for found in locate(props, path, walks):
            if (
                isinstance(found.value, int | float)
                and not isinstance(found.value, bool)
                and found.value > maximum
            ):
                yield f"{found.path} is {found.quoted()}; allowed: at most {show(maximum)}"


def _config_key_problems(
    props: Any, spec: Mapping[str, Any], walks: dict[str, list[Found]] | None = None
) -> Iterator[str]:
    """The keys of ConfigMap and Secret data: at most 253 letters, digits, '-', '_' and '.'."""
    for field in spec.get("configKeys", ()):
        for found in locate(props, field, walks):
            for data_key, _, _ in _entries(found):
                if len(data_key) > 253 or not CONFIG_KEY.fullmatch(data_key):
                    yield (
                        f"{found.path} key {show(data_key)} is not a valid key; allowed: at "
                        "most 253 letters, "
                        "digits, '-', '_' and '.'"
                    )


def _secret_keys(props: Any, secret_type: str, needed: list[str]) -> Iterator[str]:
    keys: set[str] = set()
    for field in ("data", "stringData"):
        value, _ = plain(props.get(field))
        if is_unknown(value):
            return
        if isinstance(value, Mapping):
            keys.update(str(k) for k in value)
    missing = [k for k in needed if k not in keys]
    if missing:
        yield (
            f"a {secret_type} Secret needs data keys {', '.join(show(k) for k in missing)}; they are not set"
        )


def _selector_matches(props: Any, walks: dict[str, list[Found]] | None = None) -> Iterator[str]:
    selector = locate(props, "spec.selector.matchLabels", walks)
    labels = locate(props, "spec.template.metadata.labels", walks)
    if not selector or not labels:
        return
    wanted, given = selector[0].value, labels[0].value
    if not isinstance(wanted, Mapping) or not isinstance(given, Mapping):
        return
    for key, raw_value in wanted.items():
        value, _ = plain(raw_value)
        have, _ = plain(given.get(key))
        if is_unknown(value) or is_unknown(have):
            continue
        if have != value:
            yield (
                f"spec.selector.matchLabels[{show(key)}] is {show(value)} but spec.template.metadata.labels "
                f"gives {show(have) if have is not None else 'no such label'}; allowed: a selector the "
                "template's labels match"
            )


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    for problem in problems(args.resource_type, args.props):
        report(f"{args.resource_type} '{args.name}': {problem} [Kubernetes API validation]", None)


POLICY = GfResourcePolicy(
    RULE,
    validate,
    Judges(prefixes=("kubernetes:",), description="every `kubernetes:<group>/<version>:<Kind>` resource"),
)
