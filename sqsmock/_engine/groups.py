"""A FIFO message group: its messages in send order, with removed ones dropped lazily.

A pure structure -- no lock, no clock, no store -- like the log and the schedule: the FIFO queue
(``fifo.py``) keeps one per message group and decides when a group is ready; the group only
knows its first live message and when to drop the removed ones it still holds.
"""

from __future__ import annotations

from collections import deque

from .message import Message

__all__ = ["GROUP_COMPACT_MIN_DEAD", "Group"]

#: A group's deque is compacted once it holds more removed messages than this and than live
#: ones (amortised O(1) per removal, like the log's compaction).
GROUP_COMPACT_MIN_DEAD = 32


class Group:
    __slots__ = ("dead", "key", "messages")

    def __init__(self, key: str) -> None:
        self.key = key
        self.messages: deque[Message] = deque()
        #: Removed messages still in ``messages`` (behind a live head, or not yet dropped).
        self.dead = 0

    def head(self) -> Message | None:
        """The first live message (dropping removed ones from the front)."""
        messages = self.messages
        while messages and messages[0].slot < 0:
            messages.popleft()
            self.dead -= 1
        return messages[0] if messages else None

    def compact(self) -> None:
        """Drop removed messages from anywhere in the group, once they outnumber live ones.

        Without this, messages deleted behind a head that is never deleted (received again and
        again) would stay in the deque, and every receive of the group would step over them.
        """
        if self.dead > GROUP_COMPACT_MIN_DEAD and 2 * self.dead > len(self.messages):
            self.messages = deque(m for m in self.messages if m.slot >= 0)
            self.dead = 0
