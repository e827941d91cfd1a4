"""pools.<name>.queue: the queue a pool takes work from, created by the fleet or named."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.components.spec import PoolQueue, SpecError, parse_fleet

PATH = "gpufleet:fleet.pools.train.queue"
KEY = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def _fleet(queue: Any = None, budget: Any = None) -> dict[str, Any]:
    pool: dict[str, Any] = {
        "instance_types": ["g5.2xlarge"],
        "size": {"max": 4},
        "workload": {"image_reads_queue": True},
    }
    if queue is not None:
        pool["queue"] = queue
    return {
        "environment": "dev",
        "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"},
        "budget": budget or {"monthly": 5000},
        "pools": {"train": pool},
    }


def _errors(raw: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(SpecError) as raised:
        parse_fleet(raw, source="test")
    return raised.value.errors


def test_default_is_a_queue_the_fleet_creates() -> None:
    queue = parse_fleet(_fleet(), source="test").pools["train"].queue
    assert queue == PoolQueue()
    assert (queue.existing, queue.visibility_timeout_s, queue.max_receives) == (False, 900, 5)


def test_created_queue_settings() -> None:
    queue = parse_fleet(_fleet({"visibility_timeout": "2h", "max_receives": 3}), source="test").pools["train"]
    assert (queue.queue.visibility_timeout_s, queue.queue.max_receives) == (7200, 3)


@pytest.mark.parametrize(
    "given",
    [{"name": "render-jobs"}, {"name": "train.fifo"}, {"arn": "arn:aws:sqs:us-east-1:123456789012:jobs"}],
)
def test_an_existing_queue_by_name_or_arn(given: dict[str, str]) -> None:
    queue = parse_fleet(_fleet(given), source="test").pools["train"].queue
    assert queue.existing
    assert (queue.name, queue.arn) == (given.get("name"), given.get("arn"))


@pytest.mark.parametrize(
    ("queue", "error"),
    [
        (
            {"name": "a", "arn": "arn:aws:sqs:us-east-1:123456789012:a"},
            (PATH, "give either name or arn of an existing queue, not both"),
        ),
        (
            {"name": "jobs", "max_receives": 3},
            (
                PATH,
                "max_receives apply to a queue the fleet creates; an existing queue (name or arn) keeps its "
                "own settings",
            ),
        ),
        (
            {"name": "jobs queue"},
            (
                f"{PATH}.name",
                "must be an SQS queue name: 1-80 letters, digits, '-' or '_' (a FIFO queue ends in .fifo), "
                "got 'jobs queue'",
            ),
        ),
        (
            {"arn": "arn:aws:sns:us-east-1:123456789012:jobs"},
            (
                f"{PATH}.arn",
                "must be an SQS queue ARN like arn:aws:sqs:us-east-1:123456789012:jobs, got "
                "'arn:aws:sns:us-east-1:123456789012:jobs'",
            ),
        ),
        (
            {"arn": "arn:aws:sqs:us-east-1:123456789012:jobs.v2"},
            (
                f"{PATH}.arn",
                "must be an SQS queue ARN like arn:aws:sqs:us-east-1:123456789012:jobs, got "
                "'arn:aws:sqs:us-east-1:123456789012:jobs.v2'",
            ),
        ),
        (
            {"visibility_timeout": "13h"},
            (f"{PATH}.visibility_timeout", "must be at most 12h (SQS's longest visibility timeout), got 13h"),
        ),
        ({"max_receives": 0}, (f"{PATH}.max_receives", "must be >= 1, got 0")),
        (
            {"kms_key_arn": KEY},
            (
                PATH,
                "kms_key_arn is the key of an existing queue (name or arn); a queue the fleet creates is "
                "encrypted with the fleet's key",
            ),
        ),
        (
            {"name": "jobs", "kms_key_arn": "arn:aws:kms:us-east-1:123456789012:alias/jobs"},
            (
                f"{PATH}.kms_key_arn",
                "must be a KMS key ARN like arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-"
                "1234567890ab (not an alias), got 'arn:aws:kms:us-east-1:123456789012:alias/jobs'",
            ),
        ),
        (
            {"url": "https://sqs"},
            (PATH, "unknown field 'url'; allowed: name, arn, kms_key_arn, visibility_timeout, max_receives"),
        ),
    ],
)
def test_bad_queues_name_the_field(queue: dict[str, Any], error: tuple[str, str]) -> None:
    assert _errors(_fleet(queue)) == [error]


def test_an_existing_queues_customer_key() -> None:
    queue = parse_fleet(_fleet({"name": "jobs", "kms_key_arn": KEY}), source="test").pools["train"].queue
    assert (queue.name, queue.kms_key_arn) == ("jobs", KEY)


def test_stack_tag_activation_is_off_unless_asked() -> None:
    assert parse_fleet(_fleet(), source="test").budget.activate_stack_tag is False
    spec = parse_fleet(_fleet(budget={"monthly": 10, "activate_stack_tag": True}), source="test")
    assert spec.budget.activate_stack_tag is True
    assert _errors(_fleet(budget={"monthly": 10, "activate_stack_tag": "yes"})) == [
        ("gpufleet:fleet.budget.activate_stack_tag", "must be true or false, got 'yes'")
    ]
