"""What a wait that timed out says: the queue's events by kind, during the wait, its last few.

A ``WaitTimeout`` should let a test's author see at once why the wait failed: what did happen
to that queue (or, when nothing did, the queues that did see events and a queue of the same
name elsewhere) and whether the log dropped older events. Read from the log only when a wait
times out, never on the engine's path. This is the ``TimeOuts`` part of ``EventLog``
(``waiters.py``), which inherits it; it imports no log.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import TYPE_CHECKING

from .events import (
    EVENTS,
    QueueEvent,
    Raw,
    WaitTimeout,
    describe_amount,
    describe_counts,
    describe_event,
    describe_events,
    to_event,
)

if TYPE_CHECKING:
    from .waiting import Query, Watch

__all__ = ["LAST_SHOWN", "TimeOuts"]

#: Events of the queue a time-out's message shows.
LAST_SHOWN = 5


class TimeOuts:
    """``_timeout``: the error a wait that timed out raises."""

    if TYPE_CHECKING:  # what this part uses of the log (``waiters.py``)
        _cond: threading.Condition
        _events: deque[Raw]
        _first: int
        dropped: int

        def byte_limit(self) -> int | None: ...
        def _most_events(self) -> int: ...

    # -- what a time-out says ---------------------------------------------------------------

    def summary(
        self, qid: str, since: int | None = None
    ) -> tuple[dict[str, int], dict[str, int], list[QueueEvent]]:
        """The events of queue ``qid`` by kind, those from position ``since`` on, and its last
        few."""
        with self._cond:
            first = self._first
            mine = [
                (first + i, raw)
                for i, raw in enumerate(self._events)
                if raw[1] == qid or raw[2] == qid
            ]
        counts = dict.fromkeys(EVENTS, 0)
        during = dict.fromkeys(EVENTS, 0)
        for pos, raw in mine:
            counts[raw[0]] += 1
            if since is not None and pos >= since:
                during[raw[0]] += 1
        return counts, during, [to_event(raw) for _, raw in mine[-LAST_SHOWN:]]

    def _timeout(self, query: Query, watch: Watch, timeout: float, ended: bool) -> WaitTimeout:
        counts, during, last = self.summary(query.qid, watch.began)
        found = len(watch.found)
        region, account, _ = query.qid.split("/", 2)
        why = "before the mock stopped" if ended else f"within {timeout:g} s"
        lines = [
            f"waited for {query.count} {query.event!r} event{'s' if query.count > 1 else ''} on "
            f"queue {query.label!r} (region {region}, account {account}){query.describe()} "
            f"{why}: {found} happened"
            + (f" ({describe_events(watch.found)})" if watch.found else ""),
        ]
        if any(counts.values()):
            lines.append(
                f"queue {query.label!r} since the mock started or was reset: "
                f"{describe_counts(counts)}; during this wait: {describe_counts(during)}"
            )
            lines.append(f"its last {len(last)} event{'s' if len(last) > 1 else ''}:")
            lines += [f"  {describe_event(e)}" for e in last]
        else:
            lines.append(
                f"nothing happened to queue {query.label!r} since the mock started or was reset"
            )
            lines += self._elsewhere(query)
        if self.dropped:
            limit = self.byte_limit()
            most = "" if limit is None else f" or {describe_amount(limit)} of messages"
            lines.append(
                f"({self.dropped} older events were dropped: the log keeps the latest "
                f"{self._most_events()} events{most})"
            )
        return WaitTimeout("\n".join(lines), list(watch.found), counts, during, last, ended)

    def _elsewhere(self, query: Query) -> list[str]:
        """Hints when nothing happened to the queue: same name elsewhere, or queues that did
        see events."""
        with self._cond:
            qids = {raw[1] for raw in self._events}
        name = query.qid.split("/", 2)[2]
        same = sorted(q for q in qids if q.split("/", 2)[2] == name)
        if same:
            where = ", ".join(f"region {q.split('/')[0]} account {q.split('/')[1]}" for q in same)
            return [f"a queue named {name!r} had events in {where} (pass region= or a full URL)"]
        others = sorted(q.split("/", 2)[2] for q in qids)
        if others:
            shown = ", ".join(map(repr, others[:10]))
            return [f"queues with events: {shown}{' ...' if len(others) > 10 else ''}"]
        return []
