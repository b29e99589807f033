"""The journal on its own: a lock, a rebuild function and a store it commits to."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from sqsmock._engine.message import Message
from sqsmock._engine.write_through import Journal
from sqsmock._errors import SqsError
from sqsmock._store import Op, QueueRecord

QID = "us-east-1/123456789012/q"


class FakeStore:
    """Commits go to ``commits``; ``fail`` makes the next commit (or load) raise."""

    def __init__(self) -> None:
        self.commits: list[tuple[list[Op], str]] = []
        self.fail: Exception | None = None
        self.record: QueueRecord | None = QueueRecord(meta="{}")
        self.loads = 0

    def commit(self, ops: list[Op], channel: str = "") -> None:
        if self.fail is not None:
            raise self.fail
        self.commits.append((list(ops), channel))

    def load_queue(self, qid: str) -> QueueRecord | None:
        assert qid == QID
        if self.fail is not None:
            raise self.fail
        self.loads += 1
        return self.record

    def corrupted(self, reason: str) -> Exception:
        return RuntimeError(f"corrupted: {reason}")


def make(store: FakeStore | None = None) -> tuple[Journal, list[Any], list[set[str]]]:
    """A journal whose rebuilds and stale markings are logged."""
    rebuilt: list[Any] = []
    failed: list[set[str]] = []
    journal = Journal(QID, threading.Lock(), rebuilt.append)
    journal.attach(store, failed.append)  # type: ignore[arg-type]
    return journal, rebuilt, failed


def message(message_id: str = "m1") -> Message:
    return Message(message_id, "body", "md5")


def test_without_a_store_nothing_is_recorded_and_a_session_only_locks() -> None:
    journal, _, _ = make(None)
    with journal.session():
        assert journal.lock.locked()
        journal.record_message(message())
        journal.record_meta(lambda: pytest.fail("metadata is not encoded without a store"))
        assert journal.ops is None
    assert not journal.lock.locked()
    assert journal.delete_ops([message()]) == []


def test_a_session_commits_its_writes_once_in_order_on_the_queues_channel() -> None:
    store = FakeStore()
    journal, _, _ = make(store)
    with journal.session():
        journal.record_message(message("a"))
        journal.record_delete(message("b"))
        journal.record(Op("sequence", QID, value="7"))
        journal.record_meta(lambda: "meta")
        assert store.commits == []
    assert [[(op.kind, op.key) for op in ops] for ops, _ in store.commits] == [
        [("msg", "a"), ("del", "b"), ("sequence", ""), ("queue", "")]
    ]
    assert store.commits[0][1] == QID
    with journal.session():
        pass  # nothing recorded: nothing committed
    assert len(store.commits) == 1


def test_flush_puts_the_moved_from_ops_first() -> None:
    store = FakeStore()
    journal, _, _ = make(store)
    with journal.session():
        journal.record_message(message("arrived"))
        journal.flush([Op("del", "us-east-1/123456789012/other", "arrived")])
    ((ops, _),) = store.commits
    assert [(op.kind, op.qid) for op in ops] == [
        ("del", "us-east-1/123456789012/other"),
        ("msg", QID),
    ]


def test_a_failed_commit_raises_marks_stale_and_the_next_session_reloads_first() -> None:
    store = FakeStore()
    journal, rebuilt, failed = make(store)
    store.fail = ConnectionError("down")
    with pytest.raises(ConnectionError), journal.session():
        journal.record_message(message("a"))
        journal.flush([Op("del", "us-east-1/123456789012/other", "a")])
    assert journal.stale
    assert failed == [{QID, "us-east-1/123456789012/other"}]
    assert not journal.lock.locked()
    # Redis still down: the reload fails, the call raises, the queue stays stale.
    with pytest.raises(ConnectionError), journal.session():
        pytest.fail("the call must not run on stale memory")
    assert journal.stale and journal.reloads == 0 and not journal.lock.locked()
    store.fail = None
    with journal.session():
        assert rebuilt == [store.record]
        assert journal.ops == []  # writes recorded before the failure are gone
    assert not journal.stale and journal.reloads == 1


def test_settle_reloads_only_when_stale() -> None:
    store = FakeStore()
    journal, rebuilt, _ = make(store)
    journal.settle()
    assert rebuilt == []
    journal.stale = True
    store.record = None  # the store no longer holds the queue
    journal.settle()
    assert rebuilt == [None] and not journal.stale


def test_a_record_the_queue_cannot_read_is_reported_by_the_store() -> None:
    store = FakeStore()

    def rebuild(record: QueueRecord | None) -> None:
        raise KeyError("attributes")

    journal = Journal(QID, threading.Lock(), rebuild)
    journal.attach(store, lambda qids: None)  # type: ignore[arg-type]
    journal.stale = True
    with pytest.raises(RuntimeError, match="corrupted: queue 'us-east-1/123456789012/q': 'attr"):
        journal.settle()
    assert journal.stale and not journal.lock.locked()


def test_a_dropped_journal_refuses_sessions_and_discards_pending_writes() -> None:
    store = FakeStore()
    journal, _, _ = make(store)
    with journal.session():
        journal.record_message(message())
        journal.drop()  # deleted while the call ran: its writes go with the queue
    assert store.commits == []
    with pytest.raises(SqsError) as raised, journal.session():
        pass
    assert raised.value.error == "QueueDoesNotExist"
    assert not journal.lock.locked()


def test_delete_ops_name_the_queue_for_a_commit_elsewhere() -> None:
    journal, _, _ = make(FakeStore())
    ops = journal.delete_ops([message("a"), message("b")])
    assert ops == [Op("del", QID, "a"), Op("del", QID, "b")]
    assert journal.ops == []  # not recorded here
