"""Dead-letter queues: when a message has been received too often, and how it moves.

A queue's RedrivePolicy names a dead-letter queue and a ``maxReceiveCount``. A receive that
would hand a message out once more than that takes it off the queue instead (under the source's
lock, with the other messages of that receive), and after the lock is released ``dead_letter``
moves it: the arrival in the dead-letter queue (``Queue.accept_messages``, under that queue's
lock) commits together with the departure from the source, so no call ever holds two queue locks
and a store never loses nor doubles a moved message. Message move tasks (``move_tasks.py``) move
messages back the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from .._errors import SqsError
from .message import Message

if TYPE_CHECKING:
    from .queue import Queue

__all__ = ["RedrivePolicy", "dead_letter", "exhausted"]

#: Finds a queue by ARN (None if there is none).
Resolve = Callable[[str], "Queue | None"]


class RedrivePolicy(NamedTuple):
    """A queue's RedrivePolicy attribute, parsed."""

    target_arn: str
    max_receive_count: int


def exhausted(policy: RedrivePolicy, m: Message, resolve: Resolve | None) -> bool:
    """Would delivering ``m`` exceed ``policy``'s maxReceiveCount (and is there a dead-letter
    queue to move it to)?"""
    if m.receive_count < policy.max_receive_count or resolve is None:
        return False
    return resolve(policy.target_arn) is not None


def dead_letter(
    source: Queue, messages: list[Message], epoch: int, resolve: Resolve | None
) -> None:
    """Move exhausted messages taken from ``source`` to its dead-letter queue (called without
    any queue lock held).

    They keep MessageId, body, attributes and receive count and gain the source's ARN; a
    standard message keeps its enqueue time, a FIFO one gets a new one. Their departure and
    arrival are written in one transaction; if the dead-letter queue is gone meanwhile, they go
    back to the source. Once moved, the queue's observer is told (``"dead-lettered"``, with the
    dead-letter queue and the copies, which name their source in ``dlq_source_arn``).
    ``epoch``: the source's reload count when they were taken -- if it reloaded since, its
    memory may hold them again, so it reloads once more.
    """
    policy = source.config.redrive
    target = resolve(policy.target_arn) if resolve and policy else None
    copies = []
    for old in messages:
        m = old.carry()
        m.dlq_source_arn = source.arn
        if target is not None and target.fifo:
            m.sent_at = -1.0
        copies.append(m)
    try:
        if target is None:
            raise SqsError("QueueDoesNotExist")
        target.accept_messages(copies, source.journal.delete_ops(messages))
    except SqsError:  # the dead-letter queue is gone: the messages stay where they were
        source.accept_messages([old.carry() for old in messages])
    else:
        if source.observe is not None:  # told with the queue they arrived in
            source.observe("dead-lettered", target, copies)
    if source.journal.reloads != epoch:
        source.stale = True
