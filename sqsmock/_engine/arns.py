"""Queue ARNs: a queue's identity as SQS names it, ``arn:aws:sqs:<region>:<account>:<name>``."""

from __future__ import annotations

__all__ = ["queue_arn", "split_arn"]


def queue_arn(region: str, account: str, name: str) -> str:
    return f"arn:aws:sqs:{region}:{account}:{name}"


def split_arn(arn: str) -> tuple[str, str, str] | None:
    """``(region, account, name)`` of a queue ARN as sqsmock makes them; None for anything else."""
    parts = arn.split(":")
    if len(parts) != 6 or parts[0] != "arn" or parts[1] != "aws" or parts[2] != "sqs":
        return None
    return parts[3], parts[4], parts[5]
