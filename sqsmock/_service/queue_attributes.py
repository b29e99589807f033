"""Queue attributes: which exist, which may be set on which queue type, valid values.

``validate`` turns requested attributes into their canonical string values (as GetQueueAttributes
returns them) or raises the error SQS gives. ``describe`` renders GetQueueAttributes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .._engine import Backend, Queue
from .._engine.config import FIFO_DEFAULT_ATTRIBUTES
from .._errors import SqsError
from ._validate import first_forbidden

__all__ = ["GETTABLE", "describe", "validate"]

_RANGES: dict[str, tuple[int, int]] = {
    "DelaySeconds": (0, 900),
    "MaximumMessageSize": (1024, 1048576),
    "MessageRetentionPeriod": (60, 1209600),
    "ReceiveMessageWaitTimeSeconds": (0, 20),
    "VisibilityTimeout": (0, 43200),
    "KmsDataKeyReusePeriodSeconds": (60, 86400),
}
#: KmsDataKeyReusePeriodSeconds of a queue with a KMS key that was never given one.
KMS_DATA_KEY_REUSE_DEFAULT = "300"
_INTEGER = re.compile(r"-?[0-9]+")
_BOOLEANS = frozenset({"FifoQueue", "ContentBasedDeduplication", "SqsManagedSseEnabled"})
_CHOICES: dict[str, tuple[str, ...]] = {
    "DeduplicationScope": ("messageGroup", "queue"),
    "FifoThroughputLimit": ("perQueue", "perMessageGroupId"),
}
_SETTABLE = frozenset(
    {
        *_RANGES,
        *_BOOLEANS,
        *_CHOICES,
        "Policy",
        "RedrivePolicy",
        "RedriveAllowPolicy",
        "KmsMasterKeyId",
    }
)
_COMPUTED = (
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesDelayed",
    "ApproximateNumberOfMessagesNotVisible",
    "CreatedTimestamp",
    "LastModifiedTimestamp",
    "QueueArn",
)
_FIFO_ONLY = frozenset({"FifoQueue", "ContentBasedDeduplication"})
_FIFO_SETTINGS = frozenset({"DeduplicationScope", "FifoThroughputLimit"})
#: Every name GetQueueAttributes accepts.
GETTABLE = frozenset({"All", *_SETTABLE, *_COMPUTED})


def validate(
    attributes: Mapping[str, Any],
    *,
    fifo: bool,
    backend: Backend,
    source_arn: str,
    creating: bool,
    queue: Queue | None = None,
    any_dead_letter_type: bool = False,
) -> dict[str, str]:
    """Canonical values of ``attributes`` for a queue of the given type, or the SQS error.
    ``any_dead_letter_type``: a FIFO queue may name a standard dead-letter queue and the other
    way round (ElasticMQ's rule, for the queues its configuration file declares)."""
    out: dict[str, str] = {}
    for name, raw in attributes.items():
        value = "" if raw is None else str(raw)
        if name not in _SETTABLE:
            raise SqsError("InvalidAttributeName", name=name)
        if not fifo and name in _FIFO_ONLY:
            raise SqsError("InvalidAttributeName", name=name)
        if not fifo and name in _FIFO_SETTINGS:
            raise SqsError("FifoSettingOnStandardQueue", name=name)
        if first_forbidden(value) is not None:  # no Unicode text, or not for XML answers
            raise SqsError("InvalidAttributeValue", name=name)
        out[name] = _canonical(
            name,
            value,
            fifo=None if any_dead_letter_type else fifo,
            backend=backend,
            source_arn=source_arn,
        )
    if fifo and not creating and out.get("FifoQueue") == "false":
        raise SqsError("QueueTypeChange")
    if out.get("KmsMasterKeyId") and out.get("SqsManagedSseEnabled") == "true":
        raise SqsError("ConflictingEncryption")
    if (
        out.get("SqsManagedSseEnabled") == "true"
        and queue is not None
        and "KmsMasterKeyId" in queue.attributes
        and out.get("KmsMasterKeyId") != ""
    ):
        raise SqsError("ConflictingEncryption")
    _check_throughput(out, queue)
    return out


def _check_throughput(out: dict[str, str], queue: Queue | None) -> None:
    current = queue.attributes if queue is not None else FIFO_DEFAULT_ATTRIBUTES
    limit = out.get("FifoThroughputLimit", current.get("FifoThroughputLimit"))
    scope = out.get("DeduplicationScope", current.get("DeduplicationScope"))
    if limit == "perMessageGroupId" and scope == "queue":
        raise SqsError("ThroughputLimitNeedsGroupScope")


def _canonical(
    name: str, value: str, *, fifo: bool | None, backend: Backend, source_arn: str
) -> str:
    if name in _RANGES:
        low, high = _RANGES[name]
        text = value.strip()
        # (The length test first: int() refuses text of more than 4,300 digits.)
        if not (len(text) <= 20 and _INTEGER.fullmatch(text) and low <= int(text) <= high):
            raise SqsError("InvalidAttributeValue", name=name)
        return str(int(text))
    if name in _BOOLEANS:
        if value.lower() not in ("true", "false"):
            raise SqsError("InvalidAttributeValue", name=name)
        return value.lower()
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            raise SqsError("InvalidAttributeValue", name=name)
        return value
    if value == "":
        return ""  # Policy, RedrivePolicy, RedriveAllowPolicy, KmsMasterKeyId: removes it
    if name == "Policy":
        return _policy(value)
    if name == "RedrivePolicy":
        return _redrive_policy(value, fifo=fifo, backend=backend, source_arn=source_arn)
    if name == "RedriveAllowPolicy":
        return _redrive_allow_policy(value)
    return value  # KmsMasterKeyId: any alias or key id


def _json_map(value: str) -> dict[str, Any] | None:
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, dict) else None


def _policy(value: str) -> str:
    parsed = _json_map(value)
    if parsed is None:
        raise SqsError("PolicyNotJson")
    return json.dumps(parsed, separators=(",", ":"))


def _redrive_policy(value: str, *, fifo: bool | None, backend: Backend, source_arn: str) -> str:
    parsed = _json_map(value)
    if parsed is None:
        raise SqsError("RedrivePolicyNotJson", value=value)
    for key in ("deadLetterTargetArn", "maxReceiveCount"):
        if key not in parsed:
            raise SqsError("RedrivePolicyMissingKey", value=value, key=key)
    unknown = set(parsed) - {"deadLetterTargetArn", "maxReceiveCount"}
    if unknown:
        raise SqsError("RedrivePolicyUnknownKey", value=value, key=sorted(unknown)[0])
    count = parsed["maxReceiveCount"]
    try:
        number = int(count)
        if isinstance(count, (bool, float)):
            raise ValueError
    except (TypeError, ValueError):
        number = 0
    if not 1 <= number <= 1000:
        raise SqsError("MaxReceiveCountOutOfRange", value=value, count=count)
    arn = parsed["deadLetterTargetArn"]
    target = backend.by_arn(arn) if isinstance(arn, str) else None
    if target is None:
        raise SqsError("DeadLetterTargetDoesNotExist", value=value)
    if fifo is not None and target.fifo != fifo:  # None: either type
        raise SqsError("DeadLetterTargetTypeMismatch", value=value)
    if not _allows_source(target, source_arn):
        raise SqsError("DeadLetterSourceNotAllowed", value=value, arn=arn)
    return json.dumps(  # the target's own ARN: the one given, unless a namespace is shared
        {"deadLetterTargetArn": target.arn, "maxReceiveCount": number}, separators=(",", ":")
    )


def _allows_source(target: Queue, source_arn: str) -> bool:
    """Does the dead-letter queue's RedriveAllowPolicy let ``source_arn`` name it?"""
    policy = target.attributes.get("RedriveAllowPolicy")
    if not policy:
        return True
    parsed = json.loads(policy)
    permission = parsed.get("redrivePermission")
    if permission == "denyAll":
        return False
    if permission == "byQueue":
        return source_arn in parsed.get("sourceQueueArns", [])
    return True


def _redrive_allow_policy(value: str) -> str:
    parsed = _json_map(value)
    if parsed is None:
        raise SqsError("RedriveAllowPolicyUnsupported", value=value)
    permission = parsed.get("redrivePermission")
    arns = parsed.get("sourceQueueArns")
    if permission not in ("allowAll", "denyAll", "byQueue") or set(parsed) - {
        "redrivePermission",
        "sourceQueueArns",
    }:
        raise SqsError("RedriveAllowPolicyUnsupported", value=value)
    if permission == "byQueue":
        if (
            not isinstance(arns, list)
            or not 1 <= len(arns) <= 10
            or not all(isinstance(a, str) for a in arns)
        ):
            raise SqsError("RedriveAllowPolicySourceCount", value=value)
    elif arns is not None:
        raise SqsError("RedriveAllowPolicySourcesNotByQueue", value=value)
    return json.dumps(parsed, separators=(",", ":"))


def describe(queue: Queue, names: Iterable[str]) -> dict[str, str]:
    """GetQueueAttributes: the requested attributes that have a value."""
    wanted = set(names)
    for name in wanted:
        if name not in GETTABLE or (not queue.fifo and name in _FIFO_ONLY):
            raise SqsError("InvalidAttributeName", name=name)
    every = "All" in wanted
    out: dict[str, str] = {}
    if every or wanted & {
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesDelayed",
        "ApproximateNumberOfMessagesNotVisible",
    }:
        visible, inflight, delayed = queue.counts()
        computed = {
            "ApproximateNumberOfMessages": visible,
            "ApproximateNumberOfMessagesDelayed": delayed,
            "ApproximateNumberOfMessagesNotVisible": inflight,
        }
        for name, count in computed.items():
            if every or name in wanted:
                out[name] = str(count)
    if every or "CreatedTimestamp" in wanted:
        out["CreatedTimestamp"] = str(int(queue.created_at))
    if every or "LastModifiedTimestamp" in wanted:
        out["LastModifiedTimestamp"] = str(int(queue.last_modified))
    if every or "QueueArn" in wanted:
        out["QueueArn"] = queue.arn
    with queue.lock:
        current = dict(queue.attributes)
    if "KmsMasterKeyId" in current:
        current.setdefault("KmsDataKeyReusePeriodSeconds", KMS_DATA_KEY_REUSE_DEFAULT)
    else:  # the reuse period shows only while a KMS key is set
        current.pop("KmsDataKeyReusePeriodSeconds", None)
    for name, value in current.items():
        if every or name in wanted:
            out[name] = value
    return out
