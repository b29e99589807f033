"""The tombstone-indexed message log (design note P1.2, kept as the storage primitive).

Messages live in slots of one list in enqueue order. Removing a message never moves another one:
its slot becomes a tombstone in O(1), so slot numbers stay valid and the order is preserved.
Physical clean-up (``compact``) runs when tombstones outnumber live messages and exceed
``COMPACT_MIN_DEAD`` -- checked on every removal, hence amortised O(1) per removal.

Two indexes point into the slots: message id -> slot (live messages only) and receipt handle ->
slot (messages whose most recent receipt handle is still current). The message-id index serves
only handles that are no longer current, so it is built lazily, on its first use, kept up from
then on, and dropped again by a compaction: a million held messages do not pay for it. These
primitives are the only way the engine touches the storage; heaps and counters of the queue sit
on top of them.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Generic, Protocol, TypeVar

__all__ = ["COMPACT_MIN_DEAD", "Slotted", "TombstoneLog"]

#: Compaction runs once ``dead > COMPACT_MIN_DEAD and dead > live``.
COMPACT_MIN_DEAD = 1024


class Slotted(Protocol):
    """What the log needs of an item: an id (as kept: hashable) and a slot number it may
    rewrite."""

    @property
    def id_key(self) -> Hashable: ...

    slot: int


T = TypeVar("T", bound=Slotted)


class TombstoneLog(Generic[T]):
    """Append-only slots with O(1) removal, stable indexes and amortised compaction."""

    __slots__ = ("_by_id", "_by_receipt", "_dead", "_live", "_slots", "compactions")

    def __init__(self) -> None:
        self._slots: list[T | None] = []
        #: id key -> slot, built on first use (None: not built).
        self._by_id: dict[Hashable, int] | None = None
        self._live = 0
        self._by_receipt: dict[str, int] = {}
        self._dead = 0
        self.compactions = 0

    # -- primitives -------------------------------------------------------------------------

    def append(self, item: T) -> int:
        """Store ``item`` in a new slot at the end and index it by id; returns the slot."""
        slot = len(self._slots)
        item.slot = slot
        self._slots.append(item)
        self._live += 1
        if self._by_id is not None:
            self._by_id[item.id_key] = slot
        return slot

    def remove(self, slot: int, receipt: str | None = None) -> T:
        """Tombstone ``slot`` in O(1) and drop it from the indexes; may trigger compaction."""
        item = self._slots[slot]
        if item is None:
            raise KeyError(f"slot {slot} is already a tombstone")
        self._slots[slot] = None
        self._dead += 1
        self._live -= 1
        if self._by_id is not None:
            del self._by_id[item.id_key]
        if receipt is not None and self._by_receipt.get(receipt) == slot:
            del self._by_receipt[receipt]
        item.slot = -1
        if self._dead > COMPACT_MIN_DEAD and self._dead > self._live:
            self.compact()
        return item

    def get(self, slot: int) -> T | None:
        return self._slots[slot]

    def index_of_id(self, key: Hashable) -> int | None:
        """The slot of the live item whose ``id_key`` is ``key`` (builds the index if need be)."""
        by_id = self._by_id
        if by_id is None:
            by_id = self._by_id = {
                item.id_key: slot for slot, item in enumerate(self._slots) if item is not None
            }
        return by_id.get(key)

    def index_of_receipt(self, receipt: str) -> int | None:
        return self._by_receipt.get(receipt)

    def mark_inflight(self, slot: int, receipt: str, previous: str | None = None) -> None:
        """Index ``receipt`` as the current handle of ``slot`` (replacing ``previous``)."""
        if previous is not None and self._by_receipt.get(previous) == slot:
            del self._by_receipt[previous]
        self._by_receipt[receipt] = slot

    def clear_inflight(self, slot: int, receipt: str) -> None:
        if self._by_receipt.get(receipt) == slot:
            del self._by_receipt[receipt]

    def is_dead(self, slot: int) -> bool:
        return self._slots[slot] is None

    def live_count(self) -> int:
        return self._live

    def dead_count(self) -> int:
        return self._dead

    def inflight_slots(self) -> list[int]:
        return list(self._by_receipt.values())

    def compact(self) -> None:
        """Drop every tombstone and renumber the survivors, keeping their order (O(n))."""
        live = [item for item in self._slots if item is not None]
        receipts = {slot: receipt for receipt, slot in self._by_receipt.items()}
        self._slots = []
        self._by_id = None
        self._by_receipt = {}
        self._dead = 0
        self._live = 0
        for item in live:
            old = item.slot
            new = self.append(item)
            receipt = receipts.get(old)
            if receipt is not None:
                self._by_receipt[receipt] = new
        self.compactions += 1

    def reset(self) -> None:
        """Forget everything (PurgeQueue)."""
        for item in self._slots:
            if item is not None:
                item.slot = -1
        self._slots = []
        self._by_id = None
        self._by_receipt = {}
        self._dead = 0
        self._live = 0

    def rebuild_indexes(self, receipts: dict[Hashable, str] | None = None) -> None:
        """Recompute the indexes from the slots (after loading); ``receipts``: id key ->
        handle. The message-id index is left to be built when first used."""
        self._by_id = None
        self._by_receipt = {}
        self._dead = 0
        self._live = 0
        for slot, item in enumerate(self._slots):
            if item is None:
                self._dead += 1
                continue
            item.slot = slot
            self._live += 1
            if receipts and item.id_key in receipts:
                self._by_receipt[receipts[item.id_key]] = slot

    # -- reading ----------------------------------------------------------------------------

    def __len__(self) -> int:
        """Number of slots, tombstones included."""
        return len(self._slots)

    def __iter__(self) -> Iterator[T]:
        """Live items in enqueue order."""
        return (item for item in self._slots if item is not None)
