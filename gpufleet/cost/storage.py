"""The checkpoint bucket and its replicas, priced from the lifecycle the program builds and the spec's
volumes; replication traffic at the inter-region price.

Lifecycles read: S3's separate lifecycle configurations (the rule whose prefix is the checkpoint prefix),
and the inline ``lifecycleRules`` of OSS buckets (``enabled``, ``prefix``, ``expirations[]``,
``transitions[]``, ``noncurrentVersionExpirations[]``) and COS buckets (always enabled, ``filterPrefix``,
``expiration``, ``transitions[]``, ``nonCurrentExpiration``), where the rule whose prefix covers the
checkpoint prefix (``""`` covers all) counts. Storage class names are matched to the catalogue's
spelling of each cloud (OSS ``Standard``/``IA``, COS ``STANDARD``/``STANDARD_IA``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpufleet.components.catalog import Catalog
from gpufleet.cost.model import OtherLine
from gpufleet.cost.other_lines import IT_CLASS, IT_RULE, bucket_storage_line, transfer_line
from gpufleet.cost.props import _default_region, _tags
from gpufleet.cost.units import _num

_BUCKETS = (
    "aws:s3/bucket:Bucket",
    "aws:s3/bucketV2:BucketV2",
    "alicloud:oss/bucket:Bucket",
    "tencentcloud:Cos/bucket:Bucket",
)


_LIFECYCLES = (
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
    "aws:s3/bucketLifecycleConfigurationV2:BucketLifecycleConfigurationV2",
)
_VERSIONINGS = ("aws:s3/bucketVersioning:BucketVersioning", "aws:s3/bucketVersioningV2:BucketVersioningV2")
_REPLICATIONS = ("aws:s3/bucketReplicationConfig:BucketReplicationConfig",)
_AWS_BUCKETS = ("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2")
_OSS_REPLICATION = "alicloud:oss/bucketReplication:BucketReplication"
_COS_BUCKET = "tencentcloud:Cos/bucket:Bucket"
_OSS_VERSIONING = "alicloud:oss/bucketVersioning:BucketVersioning"
_CLOUD_OF_BUCKET = {
    "aws:s3/bucket:Bucket": "aws",
    "aws:s3/bucketV2:BucketV2": "aws",
    "alicloud:oss/bucket:Bucket": "alicloud",
    "tencentcloud:Cos/bucket:Bucket": "tencentcloud",
}


@dataclass(frozen=True)
class _Lifecycle:
    transitions: tuple[tuple[int, str], ...]
    expire_days: int
    noncurrent_days: int


def _bucket_refs(bucket: Any) -> set[str]:
    """The values other resources use to point at a bucket: its name, id and ARN."""
    refs = {bucket.outputs.get("bucket"), bucket.outputs.get("id"), bucket.outputs.get("arn"), bucket.id}
    return {r for r in refs if isinstance(r, str) and r}


def _targets(resource: Any, bucket: Any, refs: set[str]) -> bool:
    """True when a bucket's sub-resource (lifecycle, versioning) belongs to ``bucket``: by the bucket it
    names, else (a name unknown before deploy) by sharing the bucket's component parent."""
    named = resource.inputs.get("bucket")
    if isinstance(named, str) and named in refs:
        return True
    return not (isinstance(named, str) and named) and resource.parent == bucket.parent


def _whole_days(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _first(value: Any) -> Mapping[str, Any]:
    """A nested block given as one object or as a list of them (OSS's ``expirations[]``)."""
    if isinstance(value, list):
        value = value[0] if value else None
    return value if isinstance(value, Mapping) else {}


def _inline_lifecycle(graph: Any, bucket: Any, prefix: str) -> _Lifecycle | None:
    """The enabled inline rule of an OSS or COS bucket that expires objects under ``prefix``."""
    oss = _CLOUD_OF_BUCKET[bucket.type] == "alicloud"
    if oss:
        refs = _bucket_refs(bucket)
        inline = (bucket.inputs.get("versioning") or {}).get("status") == "Enabled"
        versioned = inline or any(
            _targets(v, bucket, refs) and v.inputs.get("status") == "Enabled"
            for v in graph.of_type(_OSS_VERSIONING)
        )
    else:
        versioned = bucket.inputs.get("versioningEnable") is True
    for rule in bucket.inputs.get("lifecycleRules") or []:
        if not isinstance(rule, Mapping) or (oss and rule.get("enabled") is not True):
            continue
        rule_prefix = rule.get("prefix" if oss else "filterPrefix") or ""
        expire = _whole_days(_first(rule.get("expirations" if oss else "expiration")).get("days"))
        if not isinstance(rule_prefix, str) or not prefix.startswith(rule_prefix) or expire is None:
            continue
        transitions = tuple(
            (days, str(t["storageClass"]))
            for t in rule.get("transitions") or []
            if isinstance(t, Mapping)
            and "storageClass" in t
            and (days := _whole_days(t.get("days"))) is not None
        )
        noncurrent = (
            _first(rule.get("noncurrentVersionExpirations")).get("days")
            if oss
            else _first(rule.get("nonCurrentExpiration")).get("nonCurrentDays")
        )
        return _Lifecycle(transitions, expire, (_whole_days(noncurrent) or 0) if versioned else 0)
    return None


def _catalog_class(catalog: Catalog, cloud: str, storage_class: str) -> str:
    """``storage_class`` as the catalogue spells it for ``cloud`` (case and underscores aside): OSS's API
    says ``Standard`` and ``IA``, COS's ``STANDARD`` and ``STANDARD_IA``; unknown names stay as given."""
    services = catalog.service(cloud)
    known = services.object_classes() if services is not None else []
    folded = storage_class.replace("_", "").lower()
    return next((k for k in known if k.replace("_", "").lower() == folded), storage_class)


def _checkpoint_lifecycle(graph: Any, bucket: Any, prefix: str) -> _Lifecycle | None:
    """The enabled lifecycle rule that expires ``prefix`` (the checkpoints), as the program builds it."""
    if bucket.type in ("alicloud:oss/bucket:Bucket", "tencentcloud:Cos/bucket:Bucket"):
        return _inline_lifecycle(graph, bucket, prefix)
    refs = _bucket_refs(bucket)
    versioned = any(
        _targets(v, bucket, refs)
        and (v.inputs.get("versioningConfiguration") or {}).get("status") == "Enabled"
        for v in graph.of_type(*_VERSIONINGS)
    )
    for lifecycle in graph.of_type(*_LIFECYCLES):
        if not _targets(lifecycle, bucket, refs):
            continue
        for rule in lifecycle.inputs.get("rules") or []:
            if not isinstance(rule, Mapping) or rule.get("status") != "Enabled":
                continue
            rule_prefix = (rule.get("filter") or {}).get("prefix", rule.get("prefix"))
            expire = _whole_days((rule.get("expiration") or {}).get("days"))
            if rule_prefix != prefix or expire is None:
                continue
            transitions = tuple(
                (days, str(t["storageClass"]))
                for t in rule.get("transitions") or []
                if isinstance(t, Mapping) and (days := _whole_days(t.get("days"))) is not None
            )
            noncurrent = _whole_days((rule.get("noncurrentVersionExpiration") or {}).get("noncurrentDays"))
            return _Lifecycle(transitions, expire, noncurrent or 0 if versioned else 0)
    return None


def _replicas(graph: Any, source: Any, buckets: Sequence[Any]) -> list[tuple[Any, Any]]:
    """(replication config, destination bucket) for each enabled rule copying ``source`` elsewhere: S3
    replication configurations, OSS ``oss.BucketReplication`` (``destination.bucket``) and the COS
    bucket's own ``replicaRules`` (``destinationBucket`` ``qcs::cos:<region>::<bucket>``; the bucket
    itself stands for the configuration)."""
    refs = _bucket_refs(source)
    found = []
    for config in graph.of_type(_OSS_REPLICATION):
        if config.inputs.get("bucket") not in refs:
            continue
        named = (config.inputs.get("destination") or {}).get("bucket")
        found += [
            (config, other) for other in buckets if other is not source and named in _bucket_refs(other)
        ]
    if source.type == _COS_BUCKET:
        for rule in source.inputs.get("replicaRules") or []:
            if not isinstance(rule, Mapping) or rule.get("status") != "Enabled":
                continue
            named = str(rule.get("destinationBucket") or "").rsplit(":", 1)[-1]
            found += [
                (source, other) for other in buckets if other is not source and named in _bucket_refs(other)
            ]
    for config in graph.of_type(*_REPLICATIONS):
        if config.inputs.get("bucket") not in refs:
            continue
        for rule in config.inputs.get("rules") or []:
            if not isinstance(rule, Mapping) or rule.get("status") != "Enabled":
                continue
            arn = (rule.get("destination") or {}).get("bucket")
            for other in buckets:
                if other is not source and arn in _bucket_refs(other):
                    found.append((config, other))
    return found


def _bucket_region(bucket: Any, graph: Any, cloud: str) -> str:
    """The bucket's ``region`` input, else its explicit provider's region (OSS and COS buckets take
    none), else the cloud's configured region."""
    region = bucket.inputs.get("region")
    if isinstance(region, str) and region:
        return region
    reference = bucket.provider if isinstance(bucket.provider, str) else ""
    provider = graph.get(reference) or graph.get(reference.rsplit("::", 1)[0])
    given = provider.inputs.get("region") if provider is not None else None
    return given if isinstance(given, str) and given else (_default_region(graph.config, cloud) or "")


def _storage_lines(
    graph: Any, spec: Any, catalog: Catalog, currency: str, *, source: str, notes: list[str]
) -> list[OtherLine]:
    """The checkpoint bucket and its replicas, priced from the lifecycle the program builds and the
    spec's volumes; replication traffic at the inter-region price. Other buckets are named unpriced."""
    from gpufleet.components.spec import CONFIG_KEY

    buckets = graph.of_type(*_BUCKETS)
    if spec is None:
        if buckets:
            notes.append(
                "bucket storage is not priced: there is no gpufleet:fleet spec to give the stored volume "
                f"({', '.join(b.name for b in buckets)})"
            )
        return []
    storage = spec.storage
    written = storage.checkpoints.written_gib_per_month
    datasets = storage.datasets_gib
    field_path = f"{CONFIG_KEY}.storage"
    checkpoint_buckets = [b for b in buckets if _tags(b.inputs).get("purpose") == "checkpoints"]
    others = [b for b in buckets if b not in checkpoint_buckets]
    if others:
        notes.append(
            "bucket storage not priced where the spec gives no volume for it: "
            + ", ".join(f"{b.name} ({_tags(b.inputs).get('purpose', 'no purpose tag')})" for b in others)
        )
    if not checkpoint_buckets:
        return []
    missing = [
        f"{field_path}.{name}"
        for name, value in (("checkpoints.written_gib_per_month", written), ("datasets_gib", datasets))
        if value is None
    ]
    if written is None and datasets is None:
        notes.append(
            f"checkpoint bucket storage and replication are not priced: set {' and '.join(missing)} "
            f"({', '.join(b.name for b in checkpoint_buckets)})"
        )
        return []
    if missing:
        notes.append(f"{' and '.join(missing)} not set: that part of bucket storage is not priced")
    home, holders, transfers = _replication_flow(graph, checkpoint_buckets)
    unpriced = [b for b in checkpoint_buckets if b not in holders]
    if unpriced:
        notes.append(
            f"{', '.join(b.name for b in unpriced)}: checkpoint bucket storage not priced: "
            f"{field_path}.checkpoints.written_gib_per_month is fleet-wide and is priced once, at "
            f"{home.name} and its replicas"
        )
    priced = _Priced(graph, storage, catalog, currency, source, notes)
    lines = [priced.holder_line(bucket, home) for bucket in holders]
    if written:
        for config, origin, replica in transfers:
            line = priced.replication_line(config, origin, replica)
            if line is not None:
                lines.append(line)
    return lines


def _replication_flow(graph: Any, checkpoint_buckets: list[Any]) -> tuple[Any, list[Any], list[Any]]:
    """The home bucket, the buckets that hold the checkpoints (the home and each bucket downstream of
    it) and the replications that copy them: (config, origin, replica)."""
    home_region = _default_region(graph.config, "aws")
    # The AWS home's bucket; without one the first bucket that is no other's replica (a one-way OSS or
    # COS replica may be registered before its source).
    copies = {id(r) for b in checkpoint_buckets for _, r in _replicas(graph, b, checkpoint_buckets)}
    sources = [b for b in checkpoint_buckets if id(b) not in copies] or checkpoint_buckets
    home = next(
        (
            b
            for b in checkpoint_buckets
            if b.type in _AWS_BUCKETS and _bucket_region(b, graph, "aws") == home_region
        ),
        sources[0],
    )
    # Data lands in the home bucket; replication copies it into each bucket downstream of it.
    holders, transfers, queue = [home], [], [home]
    while queue:
        current = queue.pop()
        for config, replica in _replicas(graph, current, checkpoint_buckets):
            if replica not in holders:
                holders.append(replica)
                queue.append(replica)
                transfers.append((config, current, replica))
    return home, holders, transfers


@dataclass(frozen=True)
class _Priced:
    """What pricing the checkpoint buckets and their replication shares: the graph, the spec's storage,
    the catalogue and currency, the spec file, and the report's notes (appended to)."""

    graph: Any
    storage: Any
    catalog: Catalog
    currency: str
    source: str
    notes: list[str]

    def holder_line(self, bucket: Any, home: Any) -> OtherLine:
        """The storage of one bucket holding the checkpoints, on its own lifecycle."""
        storage, notes, catalog = self.storage, self.notes, self.catalog
        written = storage.checkpoints.written_gib_per_month
        cloud = _CLOUD_OF_BUCKET[bucket.type]
        region = _bucket_region(bucket, self.graph, cloud)
        lifecycle = _checkpoint_lifecycle(self.graph, bucket, storage.checkpoint_prefix)
        if lifecycle is None and written:
            notes.append(
                f"bucket {bucket.name}: no enabled lifecycle rule expires {storage.checkpoint_prefix!r}: "
                "checkpoint storage not priced (it would grow without end)"
            )
        bucket_notes = []
        if bucket is not home:
            bucket_notes.append(f"a replica of {home.name}: it holds the same objects, on its own lifecycle")
        if lifecycle is not None and lifecycle.noncurrent_days:
            bucket_notes.append(
                f"the bucket is versioned: an expired checkpoint stays {lifecycle.noncurrent_days} d more as "
                "a noncurrent version, in the class it had reached"
            )
        standard = _catalog_class(catalog, cloud, "STANDARD")
        line = bucket_storage_line(
            bucket.name,
            cloud=cloud,
            gib_written_per_month=float(written or 0.0) if lifecycle is not None else 0.0,
            first_class=standard,
            kept_class=standard,
            transitions=tuple((d, _catalog_class(catalog, cloud, c)) for d, c in lifecycle.transitions)
            if lifecycle
            else (),
            expire_days=lifecycle.expire_days if lifecycle else 1,
            noncurrent_days=lifecycle.noncurrent_days if lifecycle else 0,
            kept_gib=float(storage.datasets_gib or 0.0),
            catalog=catalog,
            currency=self.currency,
            where=f"{self.source}: {bucket.urn}",
            region=region,
            notes=bucket_notes,
            explain_tiers=False,
        )
        uses_tiers = lifecycle is not None and any(IT_CLASS in t for _, t in lifecycle.transitions)
        if uses_tiers and written and IT_RULE not in notes:
            notes.append(IT_RULE)
        return line

    def replication_line(self, config: Any, origin: Any, replica: Any) -> OtherLine | None:
        """The cross-region traffic of one replication, or None (with a note) when it has no price."""
        written = self.storage.checkpoints.written_gib_per_month
        datasets = self.storage.datasets_gib
        cloud = _CLOUD_OF_BUCKET[origin.type]
        region = _bucket_region(origin, self.graph, cloud)
        services = self.catalog.service(cloud)
        if services is None or services.price("transfer_inter_region_gib") is None:
            self.notes.append(
                f"replication {config.name} ({origin.name} -> {replica.name}): the cross-region traffic "
                f"({_num(written)} GiB a month) is not priced: the catalogue has no {cloud} "
                "transfer_inter_region_gib price"
            )
            return None
        replication_notes = [
            "checkpoints written in either region cross once: the spec's volume is fleet-wide",
        ]
        if datasets:
            replication_notes.append(
                f"the first copy of the {_num(datasets)} GiB of datasets is one-off (S3 Batch Replication), "
                "not monthly"
            )
        return transfer_line(
            "replication",
            config.name,
            cloud=cloud,
            region=region,
            key="transfer_inter_region_gib",
            gib_per_month=float(written),
            catalog=self.catalog,
            currency=self.currency,
            where=f"{self.source}: {config.urn}",
            notes=(f"{origin.name} -> {replica.name}", *replication_notes),
        )
