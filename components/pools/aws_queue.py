"""The SQS queue a GPU pool takes work from, and whose backlog scales it out.

Producers send work to the queue; SQS publishes ``AWS/SQS/ApproximateNumberOfMessagesVisible`` for it
every five minutes while it is active, which is the metric the pool's queue alarm reads. The pool's
instances receive, delete and extend the visibility of messages on that queue and on no other.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from gpufleet.components.identity.documents import Statement, document

QUEUE_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,75}(\.fifo)?$|^[A-Za-z0-9_-]{1,80}$")
QUEUE_ARN_RE = re.compile(r"^arn:aws[a-z-]*:sqs:([a-z]{2}(?:-[a-z]+)+-\d):(\d{12}):([^:]+)$")
KMS_KEY_ARN_RE = re.compile(
    r"^arn:aws[a-z-]*:kms:([a-z]{2}(?:-[a-z]+)+-\d):(\d{12}):key/[A-Za-z0-9-]{1,128}$"
)
MAX_VISIBILITY_TIMEOUT_S = 43_200  # SQS: at most 12 hours
DLQ_RETENTION_S = 1_209_600  # 14 days, SQS's longest: time to look at what failed
CONSUMER_ACTIONS = (
    "sqs:ReceiveMessage",
    "sqs:DeleteMessage",
    "sqs:ChangeMessageVisibility",
    "sqs:GetQueueAttributes",
    "sqs:GetQueueUrl",
)


@dataclass(frozen=True, kw_only=True)
class NewQueue:
    """A queue the fleet creates: encrypted with the pool's fleet key, a dead-letter queue for a
    message received ``max_receives`` times without being deleted, TLS-only policies on both."""

    visibility_timeout_s: int = 900
    max_receives: int = 5

    def problems(self, region: str | None) -> list[str]:
        found = []
        if not 0 <= self.visibility_timeout_s <= MAX_VISIBILITY_TIMEOUT_S:
            limit = MAX_VISIBILITY_TIMEOUT_S
            found.append(f"visibility_timeout_s: {self.visibility_timeout_s} must be within 0..{limit}")
        if not 1 <= self.max_receives <= 1000:
            found.append(f"max_receives: {self.max_receives} must be within 1..1000")
        return found


@dataclass(frozen=True, kw_only=True)
class ExistingQueue:
    """A queue made elsewhere, in the stack's account and the pool's region, named by ``name`` or
    ``arn``. Its encryption and dead-letter queue are its owner's. Encrypted with a customer-managed
    key, the queue's ``kms_key_arn`` lets the pool's role decrypt its messages through SQS (the key's
    own policy must allow the account's IAM policies, as the default key policy does)."""

    name: str | None = None
    arn: str | None = None
    kms_key_arn: str | None = None

    @property
    def queue_name(self) -> str:
        if self.arn is not None:
            return self.arn.rsplit(":", 1)[-1]
        if self.name is None:  # refused by problems()
            raise AssertionError("ExistingQueue without name or arn")
        return self.name

    def problems(self, region: str | None) -> list[str]:
        if (self.name is None) == (self.arn is None):
            return ["queue: name one existing queue by name or by arn (exactly one of them)"]
        if self.arn is not None:
            match = QUEUE_ARN_RE.match(self.arn)
            if match is None:
                example = "arn:aws:sqs:us-east-1:123456789012:jobs"
                return [f"queue.arn: {self.arn!r} is not an SQS queue ARN like {example}"]
            if region is not None and match.group(1) != region:
                return [
                    f"queue.arn: the queue is in {match.group(1)} but the pool runs in {region}; AWS/SQS "
                    "metrics stay in the queue's region, so the pool's alarm could never see them"
                ]
        if not QUEUE_NAME_RE.match(self.queue_name):
            return [
                f"queue.name: {self.queue_name!r} is not an SQS queue name (1-80 letters, digits, '-' or "
                "'_', a FIFO queue ending in .fifo)"
            ]
        return self._key_problems(region)

    def _key_problems(self, region: str | None) -> list[str]:
        if self.kms_key_arn is None:
            return []
        key = KMS_KEY_ARN_RE.match(self.kms_key_arn)
        if key is None:
            example = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
            return [f"queue.kms_key_arn: {self.kms_key_arn[:200]!r} is not a KMS key ARN like {example}"]
        queue = QUEUE_ARN_RE.match(self.arn) if self.arn is not None else None
        queue_region = queue.group(1) if queue is not None else region
        if queue_region is not None and key.group(1) != queue_region:
            return [
                f"queue.kms_key_arn: the key is in {key.group(1)} but the queue in {queue_region}; SQS "
                "encrypts with a key of the queue's own region"
            ]
        return []


QueueSource = NewQueue | ExistingQueue


@dataclass(frozen=True)
class PoolQueueRefs:
    """``kms_key_arn``: the key the fleet encrypted the queue with (None for a queue made elsewhere);
    ``url``: what the worker's SDK calls the queue by."""

    name: pulumi.Output[str]
    arn: pulumi.Output[str]
    kms_key_arn: pulumi.Input[str] | None = None
    url: pulumi.Output[str] | None = None


def _deny_plain_transport(queue_arn: pulumi.Input[str]) -> pulumi.Output[str]:
    return document(
        [
            Statement(
                sid="DenyInsecureTransport",
                effect="Deny",
                principals="*",
                actions=("sqs:*",),
                resources=[queue_arn],
                conditions={"Bool": {"aws:SecureTransport": "false"}},
            )
        ]
    )


def create_queue(
    name: str,
    source: NewQueue,
    *,
    kms_key_arn: pulumi.Input[str],
    tags: Mapping[str, str],
    region: str | None,
    opts: pulumi.ResourceOptions,
) -> PoolQueueRefs:
    """``-dlq`` and ``-queue`` (SSE-KMS, redrive to the DLQ), each with a TLS-only queue policy, and
    ``-dlq-redrive-allow``: only this pool's queue may send its failures to the DLQ (by default any
    queue of the account may)."""
    dead_letters = aws.sqs.Queue(
        f"{name}-dlq",
        kms_master_key_id=kms_key_arn,
        message_retention_seconds=DLQ_RETENTION_S,
        region=region,
        tags=dict(tags),
        opts=opts,
    )
    queue = aws.sqs.Queue(
        f"{name}-queue",
        kms_master_key_id=kms_key_arn,
        visibility_timeout_seconds=source.visibility_timeout_s,
        redrive_policy=dead_letters.arn.apply(
            lambda arn: json.dumps({"deadLetterTargetArn": arn, "maxReceiveCount": source.max_receives})
        ),
        region=region,
        tags=dict(tags),
        opts=opts,
    )
    aws.sqs.RedriveAllowPolicy(
        f"{name}-dlq-redrive-allow",
        queue_url=dead_letters.url,
        redrive_allow_policy=queue.arn.apply(
            lambda arn: json.dumps({"redrivePermission": "byQueue", "sourceQueueArns": [arn]})
        ),
        region=region,
        opts=opts,
    )
    for suffix, each in (("queue", queue), ("dlq", dead_letters)):
        aws.sqs.QueuePolicy(
            f"{name}-{suffix}-policy",
            queue_url=each.url,
            policy=_deny_plain_transport(each.arn),
            region=region,
            opts=opts,
        )
    return PoolQueueRefs(name=queue.name, arn=queue.arn, kms_key_arn=kms_key_arn, url=queue.url)


def _in_account(pool: str, arn: str, account: str) -> str:
    match = QUEUE_ARN_RE.match(arn)
    if match is not None and match.group(2) != account:
        raise pulumi.RunError(
            f"pools.{pool}.queue.arn: the queue is in account {match.group(2)} but the stack deploys to "
            f"account {account}; AWS/SQS metrics stay in the queue's account, so the pool's alarm could "
            f"never see them: name a queue of account {account}, or leave queue out and the fleet "
            "creates one"
        )
    return arn


def existing_queue(
    source: ExistingQueue, *, pool: str, region: str | None, parent: pulumi.Resource
) -> PoolQueueRefs:
    """The name and ARN of a queue made elsewhere: an ARN of this account (checked when the stack's
    account is known), or one made from its name, this account and region."""
    invoke = pulumi.InvokeOutputOptions(parent=parent)
    account = aws.get_caller_identity_output(opts=invoke).account_id
    name = pulumi.Output.from_input(source.queue_name)
    partition = aws.get_partition_output(opts=invoke)
    if source.arn is not None:
        given = source.arn
        arn = account.apply(lambda account_id: _in_account(pool, given, account_id))
        match = QUEUE_ARN_RE.match(given)
        if match is None:  # refused by ExistingQueue.problems()
            raise AssertionError(f"not an SQS queue ARN: {given}")
        url = pulumi.Output.concat(
            "https://sqs.",
            match.group(1),
            ".",
            partition.dns_suffix,
            "/",
            match.group(2),
            "/",
            match.group(3),
        )
        return PoolQueueRefs(name=name, arn=arn, kms_key_arn=source.kms_key_arn, url=url)
    where = aws.get_region_output(region=region, opts=invoke).region
    arn = pulumi.Output.concat(
        "arn:", partition.partition, ":sqs:", where, ":", account, ":", source.queue_name
    )
    url = pulumi.Output.concat(
        "https://sqs.", where, ".", partition.dns_suffix, "/", account, "/", source.queue_name
    )
    return PoolQueueRefs(name=name, arn=arn, kms_key_arn=source.kms_key_arn, url=url)


def consumer_statements(
    queue_arns: list[pulumi.Input[str]],
    kms_key_arn: pulumi.Input[str] | None = None,
    region: pulumi.Input[str] | None = None,
) -> list[Statement]:
    """What a pool's instances may do on their own queue: take work, finish it, extend it; and, for a
    queue encrypted with ``kms_key_arn``, decrypt its messages through SQS in ``region`` only (the
    region's instance role may hold no other grant on that key)."""
    statements = [Statement(sid="ConsumeOwnPoolQueue", actions=CONSUMER_ACTIONS, resources=queue_arns)]
    if kms_key_arn is not None and region is not None:
        statements.append(
            Statement(
                sid="DecryptOwnPoolQueue",
                actions=("kms:Decrypt",),
                resources=[kms_key_arn],
                conditions={
                    "StringEquals": {"kms:ViaService": pulumi.Output.concat("sqs.", region, ".amazonaws.com")}
                },
            )
        )
    return statements
