"""AWS types that take `tags` but carry no cost of their own, as type-token prefixes (regular
expression fragments) for `generate.NO_COST`."""

from __future__ import annotations

NO_COST = (
    "aws:iam/",
    "aws:s3/bucketObject",
    "aws:s3/objectCopy:",
)
