"""Engine-level tests: the tombstone log, the queue's heaps and counters, and lock discipline."""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import boto3
import pytest

from sqsmock._engine.clock import FrozenClock
from sqsmock._engine.message import Message
from sqsmock._engine.queue import Queue
from sqsmock._engine.tombstone import COMPACT_MIN_DEAD, TombstoneLog
from sqsmock._service import LongPoll
from sqsmock._service._wait import wait as wait_for

T0 = 1_700_000_000.0
JOIN_TIMEOUT = 10.0


@dataclass
class Item:
    message_id: str
    slot: int = -1

    @property
    def id_key(self) -> str:
        return self.message_id


def make_log(n: int) -> tuple[TombstoneLog[Item], list[Item]]:
    log: TombstoneLog[Item] = TombstoneLog()
    items = [Item(f"m{i}") for i in range(n)]
    for item in items:
        log.append(item)
    return log, items


def make_queue(clock: FrozenClock | None = None, **attributes: str) -> Queue:
    return Queue("q", "us-east-1", "123456789012", clock or FrozenClock(start=T0), dict(attributes))


def msg(body: str) -> Message:
    return Message(str(uuid.uuid4()), body, hashlib.md5(body.encode()).hexdigest())


def send(queue: Queue, *bodies: str, delay: int | None = None) -> list[Message]:
    messages = [msg(b) for b in bodies]
    queue.send(messages, [delay] * len(messages))
    return messages


def bodies(received: list[Any]) -> list[str]:
    return [r.body for r in received]


# -- TombstoneLog primitives ---------------------------------------------------------------


def test_append_returns_slots_in_order_and_sets_item_slot() -> None:
    log: TombstoneLog[Item] = TombstoneLog()
    items = [Item(f"m{i}") for i in range(5)]
    assert [log.append(item) for item in items] == [0, 1, 2, 3, 4]
    assert [item.slot for item in items] == [0, 1, 2, 3, 4]
    assert [log.get(i) for i in range(5)] == items
    assert len(log) == 5


def test_remove_tombstones_without_moving_other_items() -> None:
    log, items = make_log(5)
    removed = log.remove(2)
    assert removed is items[2]
    assert removed.slot == -1
    assert log.is_dead(2)
    assert log.get(2) is None
    assert len(log) == 5  # the slot stays, as a tombstone
    for i in (0, 1, 3, 4):
        assert items[i].slot == i
        assert log.get(i) is items[i]
        assert not log.is_dead(i)
        assert log.index_of_id(items[i].message_id) == i


def test_remove_drops_the_id_index_and_the_current_receipt() -> None:
    log, _ = make_log(3)
    log.mark_inflight(1, "r1")
    log.remove(1, "r1")
    assert log.index_of_id("m1") is None
    assert log.index_of_receipt("r1") is None
    assert log.inflight_slots() == []


def test_removing_a_tombstone_again_raises_key_error() -> None:
    log, _ = make_log(2)
    log.remove(0)
    with pytest.raises(KeyError):
        log.remove(0)
    assert log.dead_count() == 1


def test_index_of_id_and_receipt() -> None:
    log, _ = make_log(4)
    assert log.index_of_id("m3") == 3
    assert log.index_of_id("nope") is None
    assert log.index_of_receipt("r") is None
    log.mark_inflight(2, "r")
    assert log.index_of_receipt("r") == 2


def test_mark_inflight_replaces_the_previous_receipt() -> None:
    log, _ = make_log(3)
    log.mark_inflight(1, "first")
    log.mark_inflight(1, "second", previous="first")
    assert log.index_of_receipt("first") is None
    assert log.index_of_receipt("second") == 1
    assert log.inflight_slots() == [1]


def test_mark_inflight_keeps_a_previous_receipt_of_another_slot() -> None:
    log, _ = make_log(3)
    log.mark_inflight(0, "a")
    log.mark_inflight(1, "b", previous="a")
    assert log.index_of_receipt("a") == 0
    assert log.index_of_receipt("b") == 1


def test_clear_inflight_only_clears_the_matching_slot() -> None:
    log, _ = make_log(3)
    log.mark_inflight(0, "a")
    log.mark_inflight(1, "b")
    log.clear_inflight(1, "a")  # wrong slot for this handle: no effect
    assert log.index_of_receipt("a") == 0
    log.clear_inflight(0, "a")
    assert log.index_of_receipt("a") is None
    assert log.inflight_slots() == [1]


def test_live_and_dead_counts() -> None:
    log, _ = make_log(6)
    assert (log.live_count(), log.dead_count()) == (6, 0)
    log.remove(0)
    log.remove(4)
    assert (log.live_count(), log.dead_count()) == (4, 2)
    assert len(log) == 6


def test_iteration_yields_live_items_in_order() -> None:
    log, items = make_log(6)
    log.remove(1)
    log.remove(4)
    assert list(log) == [items[0], items[2], items[3], items[5]]


def test_reset_forgets_everything() -> None:
    log, items = make_log(4)
    log.mark_inflight(1, "r")
    log.remove(0)
    log.reset()
    assert len(log) == 0
    assert list(log) == []
    assert (log.live_count(), log.dead_count()) == (0, 0)
    assert log.index_of_id("m2") is None
    assert log.index_of_receipt("r") is None
    assert all(item.slot == -1 for item in items)
    assert log.append(Item("new")) == 0


def test_rebuild_indexes_after_building_slots_directly() -> None:
    log: TombstoneLog[Item] = TombstoneLog()
    a, b, c = Item("a"), Item("b"), Item("c")
    log._slots = [a, None, b, None, c]
    log.rebuild_indexes({"b": "rb"})
    assert (a.slot, b.slot, c.slot) == (0, 2, 4)
    assert log.index_of_id("a") == 0
    assert log.index_of_id("c") == 4
    assert log.index_of_receipt("rb") == 2
    assert (log.live_count(), log.dead_count()) == (3, 2)
    assert list(log) == [a, b, c]
    assert log.remove(2, "rb") is b
    assert log.index_of_receipt("rb") is None


# -- compaction threshold ------------------------------------------------------------------


def test_no_compaction_while_dead_does_not_exceed_live() -> None:
    log, _ = make_log(3000)
    for slot in range(COMPACT_MIN_DEAD + 1):
        log.remove(slot)
    assert log.dead_count() == 1025
    assert log.live_count() == 1975
    assert log.compactions == 0
    assert len(log) == 3000


def test_compaction_once_dead_exceeds_both_the_minimum_and_live() -> None:
    log, items = make_log(3000)
    for slot in range(1500):
        log.remove(slot)
    assert log.compactions == 0  # dead 1500 == live 1500: not yet
    assert len(log) == 3000
    log.remove(1500)  # dead 1501 > live 1499
    assert log.compactions == 1
    assert log.dead_count() == 0
    assert log.live_count() == 1499
    assert len(log) == 1499
    assert list(log) == items[1501:]


def test_no_compaction_while_dead_at_most_the_minimum() -> None:
    log, _ = make_log(1100)
    for slot in range(COMPACT_MIN_DEAD):
        log.remove(slot)
    assert log.dead_count() == 1024 and log.live_count() == 76
    assert log.compactions == 0
    log.remove(COMPACT_MIN_DEAD)
    assert log.compactions == 1
    assert len(log) == 75


def test_compaction_renumbers_slots_and_keeps_indexes_valid() -> None:
    log, items = make_log(2100)
    log.mark_inflight(4, "early")
    log.mark_inflight(2050, "late")
    log.mark_inflight(7, "removed")
    # 1051 removals: dead first exceeds live (and 1024) on the very last one
    removed = [i for i in range(2100) if i % 2 == 1] + [1000]
    for i in removed[:-1]:
        log.remove(i, "removed" if i == 7 else None)
    assert log.compactions == 0
    assert log.dead_count() == 1050
    log.remove(1000)
    assert log.compactions == 1
    assert log.dead_count() == 0
    survivors = [item for i, item in enumerate(items) if i % 2 == 0 and i != 1000]
    assert all(items[i].slot == -1 for i in removed)
    assert len(log) == log.live_count() == len(survivors) == 1049
    assert list(log) == survivors
    assert [item.slot for item in survivors] == list(range(1049))
    for item in survivors:
        assert log.index_of_id(item.message_id) == item.slot
        assert log.get(item.slot) is item
    assert log.index_of_id(items[7].message_id) is None
    assert log.index_of_receipt("early") == items[4].slot == 2
    assert log.index_of_receipt("late") == items[2050].slot == 1024
    assert log.index_of_receipt("removed") is None
    assert sorted(log.inflight_slots()) == [2, 1024]


def test_explicit_compact_counts_and_appends_after_it_continue_numbering() -> None:
    log, items = make_log(4)
    log.remove(0)
    log.remove(2)
    log.compact()
    assert log.compactions == 1
    assert [i.slot for i in (items[1], items[3])] == [0, 1]
    assert log.append(Item("x")) == 2


# -- queue: heaps, counters, ordering --------------------------------------------------------


def test_heaps_and_log_stay_bounded_over_many_send_receive_delete_cycles() -> None:
    queue = make_queue()
    cycles = 5000
    peak = Counter[str]()
    for i in range(cycles):
        send(queue, f"m{i}")
        got = queue.receive(1, None)
        assert bodies(got) == [f"m{i}"]
        assert queue.delete([got[0].receipt]) == [None]
        for name, size in (
            ("timers", len(queue.schedule.timers)),
            ("by_age", len(queue.schedule.by_age) + len(queue.schedule.age_run)),
            ("ready", len(queue.schedule.ready) + len(queue.schedule.ready_run)),
            ("log", len(queue.log)),
        ):
            peak[name] = max(peak[name], size)
    bound = COMPACT_MIN_DEAD + 16
    assert all(size <= bound for size in peak.values()), peak
    assert queue.counts() == (0, 0, 0)
    assert queue.log.compactions >= 1


def test_timers_heap_stays_bounded_under_repeated_visibility_changes() -> None:
    queue = make_queue()
    send(queue, "only")
    receipt = queue.receive(1, None)[0].receipt
    for i in range(5000):
        assert queue.change_visibility([(receipt, 30 + i % 7)]) == [None]
        assert len(queue.schedule.timers) <= COMPACT_MIN_DEAD + 16
    assert queue.counts() == (0, 1, 0)


def test_heaps_stay_bounded_when_visibility_lapses_repeatedly() -> None:
    clock = FrozenClock(start=T0)
    queue = make_queue(clock)
    send(queue, *[f"m{i}" for i in range(10)])
    for _ in range(2000):
        assert len(queue.receive(10, 5)) == 10
        clock.advance(5)
    assert len(queue.schedule.timers) <= COMPACT_MIN_DEAD + 16
    assert len(queue.schedule.ready) + len(queue.schedule.ready_run) <= COMPACT_MIN_DEAD + 16
    assert queue.counts() == (10, 0, 0)


def check_counters(queue: Queue) -> tuple[int, int, int]:
    counts = queue.counts()
    states = Counter(view.state for view in queue.peek())
    assert counts == (states["visible"], states["inflight"], states["delayed"])
    assert counts == (queue.n_visible, queue.n_inflight, queue.n_delayed)
    return counts


def test_counters_match_peek_states_through_a_scripted_scenario() -> None:
    clock = FrozenClock(start=T0)
    queue = make_queue(clock)
    assert check_counters(queue) == (0, 0, 0)
    send(queue, "a", "b", "c")
    assert check_counters(queue) == (3, 0, 0)
    send(queue, "d", "e", delay=10)
    assert check_counters(queue) == (3, 0, 2)
    got = queue.receive(2, 20)
    assert bodies(got) == ["a", "b"]
    assert check_counters(queue) == (1, 2, 2)
    clock.advance(10)  # d, e become visible
    assert check_counters(queue) == (3, 2, 0)
    assert queue.change_visibility([(got[0].receipt, 0)]) == [None]  # a visible again
    assert check_counters(queue) == (4, 1, 0)
    assert queue.delete([got[1].receipt]) == [None]  # b gone
    assert check_counters(queue) == (4, 0, 0)
    again = queue.receive(10, 5)
    assert bodies(again) == ["a", "c", "d", "e"]
    assert check_counters(queue) == (0, 4, 0)
    clock.advance(5)  # all lapse
    assert check_counters(queue) == (4, 0, 0)
    assert queue.delete([got[0].receipt]) == [None]  # a's lapsed first handle still deletes
    assert check_counters(queue) == (3, 0, 0)
    assert queue.delete([got[0].receipt]) == [None]  # a handle of a deleted message: no effect
    assert check_counters(queue) == (3, 0, 0)
    send(queue, "f", delay=3)
    assert check_counters(queue) == (3, 0, 1)
    queue.purge()
    assert check_counters(queue) == (0, 0, 0)
    assert queue.peek() == []


def test_retention_evicts_from_the_oldest_end() -> None:
    clock = FrozenClock(start=T0)
    queue = make_queue(clock, MessageRetentionPeriod="60")
    send(queue, "old")
    clock.advance(30)
    send(queue, "middle")
    clock.advance(20)
    send(queue, "young")
    clock.advance(10)  # "old" is exactly 60 s old
    assert [v.body for v in queue.peek()] == ["middle", "young"]
    assert queue.counts() == (2, 0, 0)
    clock.advance(30)  # "middle" 60 s old
    assert bodies(queue.receive(10, None)) == ["young"]
    assert queue.log.live_count() == 1


def test_retention_removes_in_flight_and_delayed_messages_too() -> None:
    clock = FrozenClock(start=T0)
    queue = make_queue(clock, MessageRetentionPeriod="60")
    send(queue, "inflight")
    send(queue, "delayed", delay=900)
    assert bodies(queue.receive(1, 600)) == ["inflight"]
    assert queue.counts() == (0, 1, 1)
    clock.advance(60)
    assert queue.counts() == (0, 0, 0)
    assert queue.peek() == []


def test_receive_returns_messages_in_enqueue_order() -> None:
    queue = make_queue()
    names = [f"m{i:02d}" for i in range(25)]
    send(queue, *names)
    out: list[str] = []
    while got := queue.receive(10, None):
        out.extend(bodies(got))
    assert out == names


def test_lapsed_message_goes_back_to_its_old_place() -> None:
    clock = FrozenClock(start=T0)
    queue = make_queue(clock)
    send(queue, "a", "b", "c", "d", "e")
    assert bodies(queue.receive(2, 10)) == ["a", "b"]
    assert bodies(queue.receive(1, 100)) == ["c"]
    clock.advance(10)
    got = queue.receive(10, None)
    assert bodies(got) == ["a", "b", "d", "e"]
    assert [r.receive_count for r in got] == [2, 2, 1, 1]


def test_delayed_message_keeps_its_enqueue_place() -> None:
    clock = FrozenClock(start=T0)
    queue = make_queue(clock)
    send(queue, "first", delay=5)
    send(queue, "second", "third")
    clock.advance(5)
    assert bodies(queue.receive(10, None)) == ["first", "second", "third"]


def test_superseded_receipt_still_deletes_on_a_standard_queue() -> None:
    """A handle whose visibility lapsed deletes the message even after a later receive."""
    clock = FrozenClock(start=T0)
    queue = make_queue(clock)
    send(queue, "a")
    old = queue.receive(1, 10)[0].receipt
    clock.advance(10)
    new = queue.receive(1, 10)[0].receipt
    assert queue.delete([old]) == [None]
    assert queue.counts() == (0, 0, 0)
    assert queue.delete([new]) == [None]  # already deleted: no effect, no error
    assert queue.counts() == (0, 0, 0)


def test_superseded_receipt_changes_the_visibility_on_a_standard_queue() -> None:
    """Recorded from SQS: an older handle of a message received again applies to the message."""
    clock = FrozenClock(start=T0)
    queue = make_queue(clock)
    send(queue, "a")
    old = queue.receive(1, 10)[0].receipt
    clock.advance(10)
    queue.receive(1, 10)
    assert queue.change_visibility([(old, 0)]) == [None]
    assert queue.counts() == (1, 0, 0)
    assert bodies(queue.receive(1, 10)) == ["a"]


def test_lapsed_receipt_changes_nothing_on_a_visible_message() -> None:
    clock = FrozenClock(start=T0)
    queue = make_queue(clock)
    send(queue, "a")
    old = queue.receive(1, 10)[0].receipt
    clock.advance(10)
    assert queue.change_visibility([(old, 600)]) == [None]  # accepted, no change
    assert queue.counts() == (1, 0, 0)


# -- the lock-leak regression ----------------------------------------------------------------


def drained_queue(clock: FrozenClock) -> Queue:
    """A queue whose messages were all deleted, with the tombstones not compacted yet."""
    queue = make_queue(clock)
    send(queue, *[f"m{i}" for i in range(5)])
    got = queue.receive(10, None)
    assert len(got) == 5
    assert queue.delete([r.receipt for r in got]) == [None] * 5
    assert queue.log.live_count() == 0
    assert queue.log.dead_count() == 5
    assert len(queue.log) == 5
    assert queue.log.compactions == 0
    return queue


@pytest.mark.parametrize("wait", [0, 5])
def test_receive_on_drained_uncompacted_queue_releases_the_lock(wait: int) -> None:
    clock = FrozenClock(start=T0)
    queue = drained_queue(clock)
    if wait:  # a long poll on a frozen clock jumps to its end
        poll = LongPoll(queue, clock.now() + wait, lambda: queue.receive(10, None) or None)
        assert wait_for(poll, clock) == {}
    else:
        assert queue.receive(10, None) == []
    assert clock.now() == T0 + wait

    result: dict[str, Any] = {}

    def other() -> None:
        send(queue, "after")
        result["got"] = bodies(queue.receive(10, None))
        result["counts"] = queue.counts()

    thread = threading.Thread(target=other, daemon=True)
    thread.start()
    thread.join(JOIN_TIMEOUT)
    assert not thread.is_alive(), "queue lock left held by an empty receive"
    assert result == {"got": ["after"], "counts": (0, 1, 0)}
    assert queue.lock.acquire(blocking=False)
    queue.lock.release()


def test_every_queue_operation_releases_the_lock() -> None:
    clock = FrozenClock(start=T0)
    queue = drained_queue(clock)
    send(queue, "x")
    receipt = queue.receive(1, None)[0].receipt
    operations: list[Callable[[], object]] = [
        lambda: queue.change_visibility([(receipt, 5)]),
        lambda: queue.change_visibility([("unknown", 5)]),
        lambda: queue.delete(["unknown"]),
        lambda: queue.delete([receipt]),
        lambda: queue.receive(10, None),
        lambda: queue.counts(),
        lambda: queue.peek(),
        lambda: queue.configure({"VisibilityTimeout": "40"}),
        lambda: queue.purge(),
    ]
    for operation in operations:
        operation()
        assert queue.lock.acquire(blocking=False)
        queue.lock.release()


def test_refused_purge_releases_the_lock() -> None:
    queue = drained_queue(FrozenClock(start=T0))
    queue.purge()
    with pytest.raises(Exception, match="PurgeQueue"):
        queue.purge()
    assert queue.lock.acquire(blocking=False)
    queue.lock.release()


@pytest.mark.sqsmock(clock="frozen")
def test_drained_queue_stays_usable_from_other_threads_through_boto3(sqs_mock: Any) -> None:
    client = boto3.client("sqs", region_name=sqs_mock.region)
    url = client.create_queue(QueueName="drained")["QueueUrl"]
    for i in range(5):
        client.send_message(QueueUrl=url, MessageBody=f"m{i}")
    messages = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert len(messages) == 5
    client.delete_message_batch(
        QueueUrl=url,
        Entries=[
            {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)
        ],
    )
    queue = sqs_mock.backend.get(sqs_mock.region, sqs_mock.account_id, "drained")
    assert queue.log.live_count() == 0
    assert queue.log.dead_count() == 5

    assert "Messages" not in client.receive_message(QueueUrl=url, MaxNumberOfMessages=10)

    result: dict[str, Any] = {}

    def other() -> None:
        own = boto3.session.Session().client("sqs", region_name=sqs_mock.region)
        own.send_message(QueueUrl=url, MessageBody="after")
        got = own.receive_message(QueueUrl=url, MaxNumberOfMessages=10)
        result["bodies"] = [m["Body"] for m in got.get("Messages", [])]
        result["attributes"] = own.get_queue_attributes(
            QueueUrl=url, AttributeNames=["ApproximateNumberOfMessagesNotVisible"]
        )["Attributes"]

    thread = threading.Thread(target=other, daemon=True)
    thread.start()
    thread.join(JOIN_TIMEOUT)
    assert not thread.is_alive(), "queue lock left held by an empty receive"
    assert result["bodies"] == ["after"]
    assert result["attributes"] == {"ApproximateNumberOfMessagesNotVisible": "1"}
    assert queue.lock.acquire(blocking=False)
    queue.lock.release()


# -- releasing what leaves the queue -------------------------------------------------------


def test_a_removed_message_is_released_but_its_answer_keeps_the_body() -> None:
    q = make_queue()
    (sent,) = send(q, "payload " * 100)
    (got,) = q.receive(1, 30)
    # Another caller deletes it before this receive's answer is rendered.
    assert q.delete([got.receipt]) == [None]
    assert sent.body == "" and sent.attributes is None  # released at once
    assert got.body == "payload " * 100  # the answer took it under the lock
    assert q.counts() == (0, 0, 0)


def test_a_message_taken_for_a_move_is_handed_on_whole_and_released_in_place() -> None:
    q = make_queue()
    sent = send(q, "one", "two")
    moved, _ = q.take_visible(10)
    assert [m.body for m in moved] == ["one", "two"]
    assert [m.message_id for m in moved] == [m.message_id for m in sent]
    assert all(m.body == "" for m in sent)  # the queue's own records hold no content
    assert q.counts() == (0, 0, 0)
