"""A FIFO queue after a restart: its group rotation and receive attempts, read back.

With a store, a restarted queue answers as the one before it would have: the rotation's order
is part of the answer. A group joins the back of the rotation either during a call (its head
was sent, deleted, made visible) or when time passes (its head's visibility timeout or delay
ends). Calls write a *ticket* per group (state ``r:<group>``): ``[0, when, n]`` when it joined,
``[1, n]`` when it left by delivering, ``n`` counting the queue's events (one per receive).
Lapses are not written
(time-driven transitions never are); a restore orders ready groups as memory would have:
a lapse at ``T`` comes before a join at ``T`` in a later call, lapses due together go in the
timer heap's order (enqueue order), and a lapse due at the very moment of its receive
(VisibilityTimeout 0) comes after every event of that receive. Receive attempts
(``ReceiveRequestAttemptId``) are kept too (state ``a:<id>``), so a retry after a restart gets
the same messages.

``fifo.py`` writes the tickets and attempts on its call paths; reading them back runs only when
a queue is loaded, so it is the ``FifoRestore`` part of ``FifoQueue``, apart from those paths.
This module imports no queue: the FIFO queue imports it.
"""

from __future__ import annotations

import heapq
import json
import math
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from .._store import Op, QueueRecord
from .message import INFLIGHT, Message, key_of_id

if TYPE_CHECKING:
    from .groups import Group
    from .tombstone import TombstoneLog
    from .write_through import Journal

__all__ = ["ATTEMPT", "TICKET", "FifoRestore"]

#: Names of the queue's stored state: a group's rotation ticket, a receive attempt.
TICKET = "r:"
ATTEMPT = "a:"


class FifoRestore:
    """Putting the ready groups back in order, and the receive attempts that still hold."""

    if TYPE_CHECKING:  # what this part uses of the FIFO queue (``fifo.py``)
        qid: str
        journal: Journal
        log: TombstoneLog[Message]
        _groups: dict[str, Group]
        _rotation: OrderedDict[str, None]
        _attempts: dict[str, tuple[float, list[tuple[Message, str, int]]]]
        _attempt_expiry: list[tuple[float, str]]
        _events: int
        _lapsed: dict[str, float]

    def _restore_rotation(self, record: QueueRecord) -> None:
        """Put the ready groups in the order memory had them in (see this module's docstring)."""
        tickets: dict[str, list[Any]] = {}
        for name, text in record.state.items():
            if not name.startswith(TICKET):
                continue
            try:
                ticket = json.loads(text)
                if not isinstance(ticket, list) or ticket[0] not in (0, 1):
                    raise ValueError("not a ticket")
                numbers = ticket[1:]
                if len(numbers) != (2 if ticket[0] == 0 else 1) or not all(
                    isinstance(n, (int, float)) and math.isfinite(n) for n in numbers
                ):
                    raise ValueError("not a ticket")
            except (ValueError, TypeError, IndexError):
                raise ValueError(f"rotation ticket {name!r}: {text!r}") from None
            tickets[name[len(TICKET) :]] = ticket
            self._events = max(self._events, int(ticket[-1]))

        def order(key: str) -> tuple[float, float, int, int]:
            """When the group last joined: a call's join, or its head's lapse if later."""
            head = self._groups[key].head()
            assert head is not None
            ticket = tickets.get(key)
            joins = [(-math.inf, 0.0, 0, head.seq)]  # no ticket (older data): enqueue order
            if ticket is not None and ticket[0] == 0:
                joins.append((ticket[1], ticket[2], 0, 0))
            lapsed = self._lapsed.get(head.message_id)
            if lapsed is not None:  # time made it visible: after the receive that took it
                at_once = ticket is not None and ticket[0] == 1 and head.received_at == lapsed
                joins.append((lapsed, ticket[1] if at_once and ticket else 0.0, 1, head.seq))
            return max(joins)

        self._rotation = OrderedDict((key, None) for key in sorted(self._rotation, key=order))

    def _restore_attempts(self, record: QueueRecord, now: float) -> None:
        for name, text in record.state.items():
            if not name.startswith(ATTEMPT):
                continue
            attempt = name[len(ATTEMPT) :]
            try:
                expires, delivered = json.loads(text)
                entries: list[tuple[Message, str, int]] = []
                for message_id, receipt, visible_at in delivered:
                    key = key_of_id(message_id) if type(message_id) is str else message_id
                    slot = self.log.index_of_id(key)
                    m = None if slot is None else self.log.get(slot)
                    if (
                        m is None
                        or m.state != INFLIGHT  # its visibility lapsed: the attempt is void
                        or m.receipt != receipt
                        or m.visible_at != visible_at
                    ):
                        entries = []  # the attempt no longer holds: it is not retried
                        break
                    entries.append((m, receipt, m.gen))
            except (ValueError, TypeError) as error:
                raise ValueError(f"receive attempt {attempt!r}: {error}") from None
            if not isinstance(expires, (int, float)) or not math.isfinite(expires):
                raise ValueError(f"receive attempt {attempt!r}: not an expiry ({expires!r})")
            if expires <= now or not entries:
                self.journal.record(Op("unstate", self.qid, name))
                continue
            self._attempts[attempt] = (float(expires), entries)
            heapq.heappush(self._attempt_expiry, (float(expires), attempt))
