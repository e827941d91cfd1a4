"""Tencent Cloud types that take `tags` but carry no cost of their own, as type-token prefixes (regular
expression fragments) for `generate.NO_COST`."""

from __future__ import annotations

NO_COST = (
    "tencentcloud:Cam/",
    "tencentcloud:Cos/bucketObject",
)
