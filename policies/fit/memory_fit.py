"""GF-FIT-004: a GPU pool's instances hold the GPU memory its declared workload needs.

A pool declares what it runs with the tag `gpufleet:fit` (`model=llama-7b-inference`,
`model_memory_gib=24`, `distributed=true`, comma-separated) or, in a gpufleet stack, `pools.<name>.fit`
(which `gpufleet check` passes in the rule's `pools` config). A named model takes its figure from the
catalogue's small table (resnet-50 8 GiB, bert-base 16 GiB, llama-7b-inference 24 GiB), matched
whatever its case and separators (`LLaMA-7B inference`, `ResNet50`). Each instance
type of the pool must carry at least that much GPU memory (VRAM per GPU x GPUs per instance): a job
scheduled onto a smaller one runs out of memory, whatever the pool's size. A pool that declares nothing,
and a type the catalogue does not know, are not judged.
"""

from __future__ import annotations

import re

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.cost._common import describe, fmt, stack_pools
from gpufleet.policies.cost.pools import Pool
from gpufleet.policies.cost.pools.tokens import POOL_TYPES
from gpufleet.policies.fit._facts import declared_fit, entries, parts, rule_url
from gpufleet.policies.gpu import current_catalog
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges


def model_memory() -> dict[str, float]:
    try:
        from gpufleet.components.catalog.workloads import MODEL_MEMORY_GIB
    except ImportError:  # the catalogue is not installed beside the pack
        return {}
    return dict(MODEL_MEMORY_GIB)


def model_key(text: str) -> str:
    """A model name as the table spells it, whatever a tag wrote: `LLaMA-7B-Inference`, `resnet_50`,
    `ResNet50`, `BERT base` -> `llama-7b-inference`, `resnet-50`, `resnet-50`, `bert-base`."""
    key = re.sub(r"[\s_]+", "-", text.strip().lower())
    return re.sub(r"^resnet(\d)", r"resnet-\1", key)


RULE = Rule(
    id="GF-FIT-004",
    name="gpu-memory-fits-workload",
    description="Each instance type of a pool carries the GPU memory its declared workload needs.",
    clouds=tuple(parts()),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Choose types with enough GPU memory per instance (more GPUs or larger ones: g5/g6 24 GiB, g6e "
        "48 GiB per GPU), or shrink the workload (quantise it, or shard it with `distributed: true` over "
        "instances that "
        "each hold their part)."
    ),
    url=rule_url("GF-FIT-004"),
    config={
        "pools": {
            "type": "object",
            "default": {},
            "description": "fit per pool name: {model_memory_gib, model, distributed}",
        }
    },
)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    configured = RULE.settings(args)["pools"] or {}
    pools, index = stack_pools(args)
    catalog = current_catalog()
    table = model_memory()
    for pool in pools:

        def check(pool: Pool = pool) -> None:
            fit = declared_fit(pool, index, configured)
            if fit is None:
                return
            need = fit.model_memory_gib
            label = f"{fmt(need)} GiB" if need is not None else ""
            if need is None and fit.model:
                need = table.get(fit.model, table.get(model_key(fit.model)))
                if need is None:
                    report(
                        f"{describe(pool)} declares model '{fit.model}' ({fit.where}), which the model table "
                        f"does not know (known: {', '.join(sorted(table))}); set model_memory_gib instead",
                        pool.urn,
                    )
                    return
                label = f"{fmt(need)} GiB for {fit.model}"
            if need is None:
                return
            short = [
                f"{name} {fmt(entry.vram_gib * entry.gpu_count)} GiB ({entry.gpu_count} x {entry.gpu_class})"
                for name, entry in entries(pool, catalog)
                if entry is not None and entry.vram_gib * entry.gpu_count < need
            ]
            if short:
                report(
                    f"{describe(pool)} runs a workload that needs {label} of GPU memory per instance "
                    f"({fit.where}), more than {'; '.join(short)} carries: jobs on it run out of memory",
                    pool.urn,
                )

        judge(pool.urn, check)


POLICY = GfStackPolicy(RULE, validate, judges(POOL_TYPES))
