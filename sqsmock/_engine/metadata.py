"""A queue's metadata: its attributes and tags, the calls that change them, and their record.

SetQueueAttributes, AddPermission, TagQueue and their kin change a queue as a whole, once in a
while; the message calls only read the values ``config.py`` derives. So changing them is the
``Metadata`` part of ``Queue``, apart from the transitions every call runs (``queue.py``), with
the record the store keeps of them (``meta_record``). This module imports no queue: the queue
imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .records import encode_meta

if TYPE_CHECKING:
    from .clock import Clock
    from .config import QueueConfig
    from .write_through import Journal

__all__ = ["Metadata"]


class Metadata:
    """Changing a queue's attributes and tags, and writing them to the store."""

    if TYPE_CHECKING:  # what this part uses of the queue (``queue.py``)
        name: str
        region: str
        account: str
        fifo: bool
        dedup_scope: str | None
        clock: Clock
        config: QueueConfig
        journal: Journal
        tags: dict[str, str]
        created_at: float
        last_modified: float
        last_purge: float | None

    def configure(self, attributes: dict[str, str]) -> None:
        """Apply validated attribute values (SetQueueAttributes)."""
        self.update_attributes(lambda _current: attributes)

    def update_attributes(self, change: Callable[[dict[str, str]], dict[str, str]]) -> None:
        """Apply ``change(current attributes)`` -- the changed values -- in one step under the
        lock (read-modify-write callers such as AddPermission). ``change`` may raise to refuse."""
        with self.journal.session():
            self.config.apply(change(dict(self.config.attributes)))
            self.last_modified = self.clock.now()
            self.journal.record_meta(self.meta_record)

    def update_tags(self, change: Callable[[dict[str, str]], dict[str, str]]) -> None:
        """Replace the tags with ``change(current tags)`` (which may raise to refuse)."""
        with self.journal.session():
            self.tags = change(dict(self.tags))
            self.journal.record_meta(self.meta_record)

    def meta_record(self) -> str:
        """The queue's stored metadata record."""
        return encode_meta(
            name=self.name,
            region=self.region,
            account=self.account,
            fifo=self.fifo,
            attributes=self.config.attributes,
            tags=self.tags,
            created=self.created_at,
            modified=self.last_modified,
            purged=self.last_purge,
            scope=self.dedup_scope,
        )
