"""The visibility schedule of a queue: three heaps that spare every call a scan of the queue.

A pure structure like the tombstone log: no lock, no clock, no store -- the caller passes ``now``
and owns the items. It holds references to items that live in the log:

* ``ready``  -- visible items by enqueue order (``seq``): receive pops k of them, O(k log n). An
  item whose visibility lapses is pushed back with its original ``seq``, i.e. to its old place.
* ``timers`` -- delayed and in-flight items by the moment they become visible.
* ``by_age`` -- every item by send time: retention takes from the oldest end.

Entries are invalidated lazily. An item carries a generation (``gen``) that its owner bumps on
every state change and on removal; a ``ready`` or ``timers`` entry pushed under an older
generation is stale and skipped when it comes up, so changing an item's state never searches a
heap. An age entry is stale once its item has left the log (``slot < 0``). ``compact`` rebuilds
a heap whose entries exceed ``COMPACT_MIN_DEAD`` plus twice the live items the owner counts for
it (the log's threshold), so the number of entries stays proportional to live items -- amortised
O(1). Until then a stale entry still references its item: the owner releases whatever is large
in an item when it removes it (a message's body and attributes), so a stale entry holds only a
small record.
"""

from __future__ import annotations

import heapq
from collections import deque
from typing import Generic, Protocol, TypeVar

from .tombstone import COMPACT_MIN_DEAD

__all__ = ["Schedule", "Scheduled"]


class Scheduled(Protocol):
    """What the schedule reads of an item (and never writes)."""

    #: Enqueue order, unique per queue: the ready order and every heap's tie-break.
    seq: int
    #: Bumped by the owner on every state change: entries pushed earlier are stale.
    gen: int
    #: The item's slot in the log, negative once removed.
    slot: int
    #: When the item was sent (retention).
    sent_at: float


S = TypeVar("S", bound=Scheduled)


class Schedule(Generic[S]):
    """Ready, timer and age heaps with generation-checked lazy invalidation.

    Most entries arrive in order -- a message sent visible is ready after every earlier one,
    and is sent after them -- so ``ready`` and ``by_age`` each keep such entries as the bare
    item at the end of a deque (8 bytes, against a 64-byte tuple in a heap) and only the rest
    in their heap; taking merges the two. A ready entry in the deque was pushed in generation
    0 (a message just sent or loaded): it is stale once the item's generation moved on.
    """

    __slots__ = ("age_run", "by_age", "ready", "ready_run", "timers")

    def __init__(self) -> None:
        self.ready: list[tuple[int, int, S]] = []
        self.timers: list[tuple[float, int, int, S]] = []
        self.by_age: list[tuple[float, int, S]] = []
        #: Ready items pushed in generation 0 in ``seq`` order (the common case).
        self.ready_run: deque[S] = deque()
        #: Items pushed in (``sent_at``, ``seq``) order (the common case).
        self.age_run: deque[S] = deque()

    # -- pushing ----------------------------------------------------------------------------

    def push_age(self, item: S) -> None:
        """Follow ``item``'s age from now on (once per item, when it enters the log)."""
        run = self.age_run
        if not run or (run[-1].sent_at, run[-1].seq) < (item.sent_at, item.seq):
            run.append(item)
        else:
            heapq.heappush(self.by_age, (item.sent_at, item.seq, item))

    def push_ready(self, item: S) -> None:
        """``item`` is visible (in its current generation)."""
        run = self.ready_run
        if item.gen == 0 and (not run or run[-1].seq < item.seq):
            run.append(item)
        else:
            heapq.heappush(self.ready, (item.seq, item.gen, item))

    def push_timer(self, item: S, due: float) -> None:
        """``item`` becomes visible at ``due`` unless its generation changes before."""
        heapq.heappush(self.timers, (due, item.seq, item.gen, item))

    # -- taking -----------------------------------------------------------------------------

    def pop_ready(self) -> S | None:
        """The ready item enqueued first, taken off the heap (None when none is ready)."""
        run = self.ready_run
        while run and run[0].gen != 0:
            run.popleft()
        ready = self.ready
        pop = heapq.heappop
        while ready:
            if run and run[0].seq < ready[0][0]:
                return run.popleft()
            _, gen, item = pop(ready)
            if item.gen == gen:
                return item
        return run.popleft() if run else None

    def pop_due(self, now: float) -> list[S]:
        """Items whose timer fell due by ``now``, earliest first, taken off the heap.

        The caller makes them visible (which bumps their generation)."""
        timers = self.timers
        if not timers or timers[0][0] > now:
            return []
        due: list[S] = []
        pop = heapq.heappop
        while timers and timers[0][0] <= now:
            _, _, gen, item = pop(timers)
            if item.gen == gen:
                due.append(item)
        return due

    def pop_expired(self, oldest: float) -> list[S]:
        """Items still in the log that were sent at or before ``oldest``, oldest first, taken
        off the age heap (the caller removes them)."""
        run = self.age_run
        age = self.by_age
        if (not age or age[0][0] > oldest) and (not run or run[0].sent_at > oldest):
            return []
        expired: list[S] = []
        pop = heapq.heappop
        while age and age[0][0] <= oldest:
            _, _, item = pop(age)
            if item.slot >= 0:
                expired.append(item)
        merge = bool(expired)
        while run and run[0].sent_at <= oldest:
            item = run.popleft()
            if item.slot >= 0:
                expired.append(item)
        if merge:
            expired.sort(key=lambda item: (item.sent_at, item.seq))
        return expired

    def next_due(self) -> float | None:
        """When the next timer falls due (stale entries at the top are dropped)."""
        timers = self.timers
        while timers:
            due, _, gen, item = timers[0]
            if item.gen == gen:
                return due
            heapq.heappop(timers)
        return None

    # -- upkeep -----------------------------------------------------------------------------

    def compact(self, ready: int, waiting: int, stored: int) -> None:
        """Rebuild each heap whose stale entries passed the threshold, given the owner's count
        of the items each heap serves: ``ready`` visible, ``waiting`` delayed or in flight,
        ``stored`` in the log."""
        if len(self.timers) > COMPACT_MIN_DEAD + 2 * waiting:
            self.timers = [e for e in self.timers if e[3].gen == e[2]]
            heapq.heapify(self.timers)
        if len(self.by_age) + len(self.age_run) > COMPACT_MIN_DEAD + 2 * stored:
            self.by_age = [e for e in self.by_age if e[2].slot >= 0]
            heapq.heapify(self.by_age)
            self.age_run = deque(item for item in self.age_run if item.slot >= 0)
        if len(self.ready) + len(self.ready_run) > COMPACT_MIN_DEAD + 2 * ready:
            self.ready = [e for e in self.ready if e[2].gen == e[1]]
            heapq.heapify(self.ready)
            self.ready_run = deque(item for item in self.ready_run if item.gen == 0)

    def clear(self) -> None:
        """Forget every entry (PurgeQueue, a reload)."""
        self.ready = []
        self.timers = []
        self.by_age = []
        self.ready_run = deque()
        self.age_run = deque()
