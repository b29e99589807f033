"""Moves between queues: dead-letter queues, and the queue's side of message move tasks.

A queue's RedrivePolicy (parsed in ``config.py``) names a dead-letter queue and a
``maxReceiveCount``. A receive that would hand a message out once more than that takes it off
the queue instead (under the source's lock, with the other messages of that receive), and after
the lock is released ``_dead_letter`` moves it: the arrival in the dead-letter queue
(``accept_messages``, under that queue's lock) commits together with the departure from the
source, so no call ever holds two queue locks and a store never loses nor doubles a moved
message. Message move tasks (``move_tasks.py``) move messages back the same way, taking them
with ``take_visible``.

SQS accepts a redrive policy that names the queue itself, or closes a loop (A to B, B to A).
A message's receive count carries on when it moves, so such a loop would move it on at every
receive and never deliver it; ``exhausted`` keeps that from happening (docs/behaviour.md).

These are the ``Redrive`` part of ``Queue``, apart from the receive, send and delete paths that
every call runs (``queue.py``), and this module imports no queue: the queue imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .._errors import SqsError
from .._store import Op
from .config import RedrivePolicy
from .message import Message

if TYPE_CHECKING:
    from .clock import Clock
    from .config import QueueConfig
    from .scheduler import Schedule
    from .write_through import Journal

__all__ = ["Redrive", "RedrivePolicy", "exhausted"]


def exhausted(
    policy: RedrivePolicy,
    m: Message,
    resolve: Callable[[str], Redrive | None] | None,
    here: Redrive,
) -> bool:
    """Would delivering ``m`` from ``here`` exceed ``policy``'s maxReceiveCount, so that it
    moves to the dead-letter queue instead?

    Not when there is no dead-letter queue, nor when it is ``here`` itself: moving a message to
    the queue it is in would change nothing, so it stays and is delivered. And not yet when
    ``m`` arrived ``here`` by a move and has not been handed out here since (it has no receipt
    handle) while the dead-letter queues lead back ``here``: its receive count, carried on from
    the queue it left, would otherwise move it on at every receive and it would go round the
    loop without ever being delivered.
    """
    if m.receive_count < policy.max_receive_count or resolve is None:
        return False
    target = resolve(policy.target_arn)
    if target is None or target is here:
        return False
    return m.receipt is not None or not _leads_back(target, here, resolve)


def _leads_back(start: Redrive, here: Redrive, resolve: Callable[[str], Redrive | None]) -> bool:
    """Does the chain of dead-letter queues from ``start`` reach ``here``?"""
    seen: set[int] = set()
    queue: Redrive | None = start
    while queue is not None and id(queue) not in seen:
        if queue is here:
            return True
        seen.add(id(queue))
        policy = queue.config.redrive
        queue = resolve(policy.target_arn) if policy is not None else None
    return False


class Redrive:
    """A queue's side of moves: messages taken out for a move, and messages arriving."""

    if TYPE_CHECKING:  # what this part uses of the queue (``queue.py``)
        arn: str
        fifo: bool
        clock: Clock
        config: QueueConfig
        journal: Journal
        schedule: Schedule[Message]
        observe: Callable[[str, Any, list[Message]], None] | None
        #: Finds a queue by ARN (None if there is none).
        _resolve: Callable[[str], Redrive | None] | None

        def _advance(self, now: float) -> None: ...
        def _enqueue(self, m: Message, now: float, delay: int) -> None: ...
        def _remove(self, m: Message, record: bool = True) -> None: ...
        def _wake(self) -> None: ...

    def accept_messages(self, messages: list[Message], moved_from: Sequence[Op] = ()) -> None:
        # ``moved_from`` goes first in the transaction: when a message moves into the queue it
        # left (a move task whose destination is its source), the arrival must win over the
        # departure of the same message id.
        """Enqueue messages moved from another queue, bypassing deduplication.

        ``moved_from``: the ops deleting them from their old queue, committed together with
        their arrival here so the store never loses nor doubles a moved message. A message
        whose ``sent_at`` is negative is stamped with the current time.
        """
        with self.journal.session():
            now = self.clock.now()
            self._advance(now)
            for m in messages:
                if m.sent_at < 0:
                    m.sent_at = now
                self._enqueue(m, now, 0)
            self.journal.flush(list(moved_from))
            self._wake()

    def take_visible(self, limit: int) -> tuple[list[Message], int]:
        """Remove and return up to ``limit`` visible messages, oldest first (move tasks), with
        the queue's reload count at that moment.

        Their deletion is not written here: pass ``journal.delete_ops(messages)`` along to wherever
        they arrive, so both sides commit together.
        """
        with self.journal.session():
            self._advance(self.clock.now())
            out: list[Message] = []
            pop = self.schedule.pop_ready
            while len(out) < limit:
                m = pop()
                if m is None:
                    break
                out.append(self._take_out(m))
            return out, self.journal.reloads

    def _take_out(self, m: Message) -> Message:
        """Remove ``m`` for a move (dead-letter queue, move task) and return a copy that keeps
        its content and what a move preserves; ``m`` itself is released like a deleted message.
        Its deletion from the store is committed with its arrival (``journal.delete_ops``)."""
        moving = m.carry()
        self._remove(m, record=False)
        return moving

    def _dead_letter(self, messages: list[Message], epoch: int) -> None:
        """Move exhausted messages taken from this queue to its dead-letter queue (called
        without any queue lock held).

        They keep MessageId, body, attributes and receive count and gain this queue's ARN; a
        standard message keeps its enqueue time, a FIFO one gets a new one. Their departure and
        arrival are written in one transaction; if the dead-letter queue is gone meanwhile, they
        go back here. Once moved, the observer is told (``"dead-lettered"``, with the
        dead-letter queue and the copies, which name their source in ``dlq_source_arn``).
        ``epoch``: this queue's reload count when they were taken -- if it reloaded since, its
        memory may hold them again, so it reloads once more.
        """
        policy = self.config.redrive
        resolve = self._resolve
        target = resolve(policy.target_arn) if resolve and policy else None
        copies = []
        for old in messages:
            m = old.carry()
            m.dlq_source_arn = self.arn
            if target is not None and target.fifo:
                m.sent_at = -1.0
            copies.append(m)
        try:
            if target is None:
                raise SqsError("QueueDoesNotExist")
            target.accept_messages(copies, self.journal.delete_ops(messages))
        except SqsError:  # the dead-letter queue is gone: the messages stay where they were
            self.accept_messages([old.carry() for old in messages])
        else:
            if self.observe is not None:  # told with the queue they arrived in
                self.observe("dead-lettered", target, copies)
        if self.journal.reloads != epoch:
            self.journal.stale = True
