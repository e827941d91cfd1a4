"""The checkpoint bucket and its replicas, priced from the lifecycle the program builds and the spec's
volumes; replication traffic at the inter-region price.

Each cloud's buckets, lifecycles and replications are read by its module in ``gpufleet/cost/buckets/``
(the rule that expires the checkpoint prefix counts). Storage class names are matched to the
catalogue's spelling of each cloud (OSS ``Standard``/``IA``, COS ``STANDARD``/``STANDARD_IA``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpufleet.components.catalog import Catalog
from gpufleet.components.clouds import ACCOUNT_CLOUD
from gpufleet.cost.buckets import BUCKETS, CLOUD_OF_BUCKET, READERS, Lifecycle
from gpufleet.cost.model import OtherLine
from gpufleet.cost.other_lines import IT_CLASS, IT_RULE, bucket_storage_line, transfer_line
from gpufleet.cost.props import _default_region, _tags
from gpufleet.cost.units import _num


def _catalog_class(catalog: Catalog, cloud: str, storage_class: str) -> str:
    """``storage_class`` as the catalogue spells it for ``cloud`` (case and underscores aside): OSS's API
    says ``Standard`` and ``IA``, COS's ``STANDARD`` and ``STANDARD_IA``; unknown names stay as given."""
    services = catalog.service(cloud)
    known = services.object_classes() if services is not None else []
    folded = storage_class.replace("_", "").lower()
    return next((k for k in known if k.replace("_", "").lower() == folded), storage_class)


def _checkpoint_lifecycle(graph: Any, bucket: Any, prefix: str) -> Lifecycle | None:
    """The enabled lifecycle rule that expires ``prefix`` (the checkpoints), as the program builds it."""
    return READERS[CLOUD_OF_BUCKET[bucket.type]].lifecycle(graph, bucket, prefix)


def _replicas(graph: Any, source: Any, buckets: Sequence[Any]) -> list[tuple[Any, Any]]:
    """(replication config, destination bucket) for each enabled rule copying ``source`` elsewhere, as
    each cloud's reader finds them (gpufleet.cost.buckets)."""
    return [pair for reader in READERS.values() for pair in reader.replicas(graph, source, buckets)]


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

    buckets = graph.of_type(*BUCKETS)
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
    home_region = _default_region(graph.config, ACCOUNT_CLOUD)
    # The home cloud's bucket in the home region; without one the first bucket that is no other's
    # replica (a one-way replica may be registered before its source).
    copies = {id(r) for b in checkpoint_buckets for _, r in _replicas(graph, b, checkpoint_buckets)}
    sources = [b for b in checkpoint_buckets if id(b) not in copies] or checkpoint_buckets
    home = next(
        (
            b
            for b in checkpoint_buckets
            if CLOUD_OF_BUCKET.get(b.type) == ACCOUNT_CLOUD
            and _bucket_region(b, graph, ACCOUNT_CLOUD) == home_region
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
        cloud = CLOUD_OF_BUCKET[bucket.type]
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
        cloud = CLOUD_OF_BUCKET[origin.type]
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
