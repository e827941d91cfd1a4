"""GPU memory a known workload needs per instance, for a pool's `fit: {model: ...}`.

Rough figures for one copy of the model with its working memory (activations, optimizer state or KV
cache at a modest batch), in GiB: enough to say a type cannot hold it, not to size a batch. A pool that
knows its own figure sets `fit.model_memory_gib` instead.
"""

from __future__ import annotations

from types import MappingProxyType

MODEL_MEMORY_GIB = MappingProxyType(
    {
        "resnet-50": 8.0,
        "bert-base": 16.0,
        "llama-7b-inference": 24.0,
    }
)
