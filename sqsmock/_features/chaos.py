"""At-least-once delivery and best-effort ordering, on request: what standard queues may do.

SQS stores each message on several servers. A standard queue therefore may deliver a message
more than once (a copy on a server that missed the receive or the delete), may hand messages
out of order, and a short poll -- which asks only a sample of the servers -- may answer empty
while messages wait. FIFO queues do none of this. sqsmock's engine is exact; with a
``Delivery`` in force (``mock_sqs(delivery=...)``, ``handle.chaos(...)``, for the whole mock or
for one queue) the answers of ``ReceiveMessage`` on standard queues are changed after the
engine gave them, each change with its own probability:

* ``duplicates``: a delivered message is kept aside and delivered once more by a later
  receive of the queue -- same MessageId, body and attributes, a new receipt handle that works
  like any other (DeleteMessage with it deletes the message, or succeeds when it is gone, as for
  a copy AWS delivers after the delete). A receive with a copy waiting answers at once.
* ``reorder``: the messages of one receive come in a shuffled order.
* ``empty_receives``: a short poll answers no messages although some are visible.

The engine is not touched. Every draw comes from a ``random.Random`` per queue seeded from
``seed`` and the queue, so a run with the same seed and the same calls is repeated exactly,
whatever other queues do. With no seed one is chosen and shown in the settings in force
(``handle.chaos(...)`` returns them), so a failing run can be replayed.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from .._engine import Queue
from .._engine.receipts import new_receipt
from .._service import Response
from .._service.addresses import split_queue_url

__all__ = ["Chaos", "Delivery"]


@dataclass(frozen=True)
class Delivery:
    """How a standard queue's deliveries deviate: each a probability from 0 to 1."""

    #: Per delivered message: it is delivered once more by a later receive.
    duplicates: float = 0.0
    #: Per receive of two or more messages: they come shuffled.
    reorder: float = 0.0
    #: Per short poll (no wait time) with messages visible: it answers empty.
    empty_receives: float = 0.0
    #: Makes every draw repeatable; None: a seed is chosen (and shown here once in force).
    seed: int | str | None = None

    def __post_init__(self) -> None:
        for name in ("duplicates", "reorder", "empty_receives"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not 0.0 <= value <= 1.0  # NaN too: it compares false
            ):
                raise ValueError(f"{name} must be a probability between 0 and 1, not {value!r}")
        seed = self.seed
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, str))):
            raise ValueError(f"seed must be a whole number or a string, not {seed!r}")

    @property
    def any(self) -> bool:
        return bool(self.duplicates or self.reorder or self.empty_receives)


def as_delivery(value: Delivery | Mapping[str, Any] | None) -> Delivery | None:
    if value is None or isinstance(value, Delivery):
        return value
    if isinstance(value, Mapping):
        return Delivery(**value)
    raise TypeError(f"delivery must be a sqsmock Delivery or a dict, not {value!r}")


class _Copy:
    """A delivered message kept aside to be delivered again."""

    __slots__ = ("message", "message_id")

    def __init__(self, message: dict[str, Any]) -> None:
        self.message = message
        self.message_id: str = message["MessageId"]


class Chaos:
    """The delivery settings in force and the copies waiting to be delivered again."""

    def __init__(self, delivery: Delivery | None = None) -> None:
        self._lock = threading.Lock()
        self.default: Delivery | None = None
        self.per_queue: dict[str, Delivery] = {}
        self._random: dict[tuple[int, str], random.Random] = {}
        self._copies: dict[str, list[_Copy]] = {}
        #: Quick test on every call: is any setting in force?
        self.active = False
        if delivery is not None:
            self.set(delivery)

    def set(self, delivery: Delivery | None, queue: str | None = None) -> Delivery | None:
        """Put ``delivery`` in force for the mock (or for the queue named ``queue``); None ends
        it. Returns it with its seed filled in."""
        if delivery is not None and delivery.seed is None:
            delivery = replace(delivery, seed=random.SystemRandom().randrange(2**32))
        with self._lock:
            if queue is None:
                self.default = delivery
            else:
                name = split_queue_url(queue)[2]
                if delivery is None:
                    self.per_queue.pop(name, None)
                else:
                    self.per_queue[name] = delivery
            self.active = self.default is not None or bool(self.per_queue)
        return delivery

    def for_queue(self, queue: Queue) -> Delivery | None:
        if queue.fifo:
            return None  # FIFO queues keep their guarantees
        found = self.per_queue.get(queue.name, self.default)
        return found if found is not None and found.any else None

    def _rng(self, delivery: Delivery, queue: Queue) -> random.Random:
        key = (id(delivery), queue.qid)
        rng = self._random.get(key)
        if rng is None:
            rng = self._random[key] = random.Random(f"{delivery.seed}:{queue.qid}")
        return rng

    # -- ReceiveMessage -----------------------------------------------------------------------

    def before_receive(
        self, queue: Queue, params: dict[str, Any]
    ) -> tuple[Response | None, dict[str, Any]]:
        """(an answer given without the engine, or None; the parameters to run it with)."""
        delivery = self.for_queue(queue)
        if delivery is None:
            return None, params
        wait = params.get("WaitTimeSeconds")
        wait = queue.wait_time_seconds if not isinstance(wait, int) else wait
        with self._lock:
            rng = self._rng(delivery, queue)
            waiting = bool(self._copies.get(queue.qid))
            empty = bool(delivery.empty_receives and wait <= 0)
            if empty:
                empty = rng.random() < delivery.empty_receives
        if empty and queue.counts()[0]:
            return {}, params
        if waiting and wait > 0:
            params = {**params, "WaitTimeSeconds": 0}  # a copy is ready: no need to wait
        return None, params

    def after_receive(self, queue: Queue, params: Mapping[str, Any], answer: Response) -> Response:
        """The engine's answer, changed: copies waiting added, order shuffled, copies kept."""
        delivery = self.for_queue(queue)
        if delivery is None:
            return answer
        messages: list[dict[str, Any]] = list(answer.get("Messages") or ())
        wanted = params.get("MaxNumberOfMessages")
        room = (wanted if isinstance(wanted, int) else 1) - len(messages)
        with self._lock:
            rng = self._rng(delivery, queue)
            fresh = list(messages)
            waiting = self._copies.get(queue.qid)
            while waiting and room > 0:
                copy = waiting.pop(0)
                again = dict(copy.message)
                again["ReceiptHandle"] = new_receipt(queue.arn, copy.message_id)
                messages.append(again)
                room -= 1
            if delivery.duplicates:
                for message in fresh:
                    if rng.random() < delivery.duplicates:
                        self._copies.setdefault(queue.qid, []).append(_Copy(message))
            if delivery.reorder and len(messages) > 1 and rng.random() < delivery.reorder:
                rng.shuffle(messages)
        if not messages:
            return answer
        return {**answer, "Messages": messages}

    def forget(self, queue: Queue | None = None) -> None:
        """Drop the copies waiting (of one queue: it was purged or deleted)."""
        with self._lock:
            if queue is None:
                self._copies.clear()
            else:
                self._copies.pop(queue.qid, None)

    def waiting(self, queue: Queue) -> int:
        """Copies waiting to be delivered again from ``queue``."""
        with self._lock:
            return len(self._copies.get(queue.qid, ()))
