"""The visibility schedule on its own: a pure structure, driven with plain items and times."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from sqsmock._engine import scheduler
from sqsmock._engine.scheduler import Schedule
from sqsmock._engine.tombstone import COMPACT_MIN_DEAD


@dataclass(eq=False)
class Item:
    seq: int
    sent_at: float = 0.0
    gen: int = 0
    slot: int = 0


def items(n: int) -> list[Item]:
    return [Item(seq=i, sent_at=float(i)) for i in range(n)]


def ready_items(schedule: Schedule[Item]) -> list[Item]:
    """Every ready entry's item, stale ones included (the in-order run, then the heap)."""
    return [*schedule.ready_run, *(e[2] for e in schedule.ready)]


def age_items(schedule: Schedule[Item]) -> list[Item]:
    return [*schedule.age_run, *(e[2] for e in schedule.by_age)]


def containers(schedule: Schedule[Item]) -> tuple[object, ...]:
    return (
        schedule.ready,
        schedule.ready_run,
        schedule.timers,
        schedule.by_age,
        schedule.age_run,
    )


def drain_ready(schedule: Schedule[Item]) -> list[int]:
    out = []
    while (item := schedule.pop_ready()) is not None:
        out.append(item.seq)
    return out


# -- ready ----------------------------------------------------------------------------------


def test_ready_items_come_out_in_enqueue_order_whatever_the_push_order() -> None:
    schedule: Schedule[Item] = Schedule()
    for item in [Item(seq=s) for s in (5, 1, 4, 2, 3)]:
        schedule.push_ready(item)
    assert drain_ready(schedule) == [1, 2, 3, 4, 5]
    assert schedule.pop_ready() is None


def test_an_entry_pushed_under_an_older_generation_is_skipped() -> None:
    schedule: Schedule[Item] = Schedule()
    a, b, c = items(3)
    for item in (a, b, c):
        schedule.push_ready(item)
    b.gen += 1  # b changed state (received, say): its ready entry is stale
    assert drain_ready(schedule) == [0, 2]
    assert ready_items(schedule) == []  # the stale entry was dropped on the way


def test_an_item_made_ready_again_goes_back_to_its_old_place() -> None:
    schedule: Schedule[Item] = Schedule()
    a, b, c = items(3)
    for item in (a, b, c):
        schedule.push_ready(item)
    assert schedule.pop_ready() is a
    a.gen += 1  # in flight ...
    schedule.push_ready(a)  # ... and visible again: ahead of b and c
    assert drain_ready(schedule) == [0, 1, 2]


# -- timers ---------------------------------------------------------------------------------


def test_pop_due_takes_what_fell_due_by_now_earliest_first_and_leaves_the_rest() -> None:
    schedule: Schedule[Item] = Schedule()
    a, b, c, d = items(4)
    schedule.push_timer(a, 30.0)
    schedule.push_timer(b, 10.0)
    schedule.push_timer(c, 20.0)
    schedule.push_timer(d, 10.0)  # same moment as b: enqueue order decides
    assert schedule.pop_due(9.999) == []
    assert schedule.pop_due(20.0) == [b, d, c]  # "by now" includes now
    assert schedule.next_due() == 30.0
    assert schedule.pop_due(100.0) == [a]
    assert schedule.next_due() is None
    assert schedule.pop_due(200.0) == []


def test_a_timer_whose_item_changed_since_does_not_fire() -> None:
    schedule: Schedule[Item] = Schedule()
    a, b = items(2)
    schedule.push_timer(a, 10.0)
    schedule.push_timer(b, 20.0)
    a.gen += 1  # deleted, or its visibility changed
    schedule.push_timer(a, 40.0)  # the new deadline, under the new generation
    assert schedule.next_due() == 20.0  # the stale head was dropped
    assert len(schedule.timers) == 2
    assert schedule.pop_due(30.0) == [b]
    assert schedule.pop_due(40.0) == [a]


def test_next_due_is_none_when_every_timer_is_stale() -> None:
    schedule: Schedule[Item] = Schedule()
    a, b = items(2)
    schedule.push_timer(a, 10.0)
    schedule.push_timer(b, 20.0)
    a.gen += 1
    b.gen += 1
    assert schedule.next_due() is None
    assert schedule.timers == []


# -- age ------------------------------------------------------------------------------------


def test_pop_expired_takes_items_sent_at_or_before_the_limit_still_in_the_log() -> None:
    schedule: Schedule[Item] = Schedule()
    all_items = items(5)  # sent at 0, 1, 2, 3, 4
    for item in reversed(all_items):
        schedule.push_age(item)
    all_items[1].slot = -1  # removed from the log already: not expired again
    assert schedule.pop_expired(-1.0) == []
    assert [i.seq for i in schedule.pop_expired(3.0)] == [0, 2, 3]
    assert [i.seq for i in schedule.pop_expired(10.0)] == [4]
    assert age_items(schedule) == []


def test_age_ignores_generations() -> None:
    schedule: Schedule[Item] = Schedule()
    (a,) = items(1)
    schedule.push_age(a)
    a.gen += 5  # received and changed many times: still as old as it was
    assert schedule.pop_expired(0.0) == [a]


# -- upkeep ---------------------------------------------------------------------------------


def test_compact_waits_for_the_threshold_then_keeps_only_live_entries() -> None:
    schedule: Schedule[Item] = Schedule()
    live = Item(seq=10**6, sent_at=1.0)
    schedule.push_ready(live)
    schedule.push_timer(live, 5.0)
    schedule.push_age(live)
    stale = items(COMPACT_MIN_DEAD + 1)
    for item in stale:
        schedule.push_ready(item)
        schedule.push_timer(item, 1.0)
        schedule.push_age(item)
        item.gen += 1
        item.slot = -1
    before = containers(schedule)
    schedule.compact(ready=1, waiting=1, stored=1)  # 1026 entries: not above 1024 + 2 * 1
    assert all(a is b for a, b in zip(containers(schedule), before, strict=True))
    extra = Item(seq=-1, gen=1, slot=-1)
    schedule.push_ready(extra)
    schedule.push_timer(extra, 0.0)
    schedule.push_age(extra)  # (pushed under gen 1, so stale only by its slot)
    extra.gen += 1
    schedule.compact(ready=1, waiting=1, stored=1)
    assert ready_items(schedule) == [live]
    assert [e[3] for e in schedule.timers] == [live]
    assert age_items(schedule) == [live]
    assert schedule.pop_ready() is live
    assert schedule.next_due() == 5.0


def test_compact_counts_live_items_per_heap() -> None:
    schedule: Schedule[Item] = Schedule()
    for item in items(COMPACT_MIN_DEAD + 10):
        schedule.push_ready(item)  # all live
    schedule.compact(ready=5, waiting=0, stored=0)  # the owner says: 5 ready
    assert len(ready_items(schedule)) == COMPACT_MIN_DEAD + 10  # all live: nothing to drop
    assert drain_ready(schedule) == list(range(COMPACT_MIN_DEAD + 10))


def test_clear_forgets_everything() -> None:
    schedule: Schedule[Item] = Schedule()
    (a,) = items(1)
    schedule.push_ready(a)
    schedule.push_timer(a, 1.0)
    schedule.push_age(a)
    schedule.clear()
    assert [len(c) for c in containers(schedule)] == [0] * 5  # type: ignore[arg-type]
    assert schedule.pop_ready() is None
    assert schedule.next_due() is None


# -- against a model ------------------------------------------------------------------------


def test_random_histories_match_a_plain_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sends, receives, visibility changes, deletes and time passing, checked at every step
    against a model that scans every item (the answer the heaps spare us from computing).
    A low compaction threshold makes the heaps rebuild often along the way."""
    threshold = 8
    monkeypatch.setattr(scheduler, "COMPACT_MIN_DEAD", threshold)
    rebuilds = 0
    rng = random.Random(20240611)
    schedule: Schedule[Item] = Schedule()
    # Model: seq -> (state, due); state "ready" | "timer"; removed items leave the dict.
    model: dict[int, tuple[str, float]] = {}
    by_seq: dict[int, Item] = {}
    now = 0.0
    seq = 0
    for _step in range(4000):
        action = rng.random()
        if action < 0.3:  # send, maybe delayed
            seq += 1
            item = Item(seq=seq, sent_at=now)
            by_seq[seq] = item
            schedule.push_age(item)
            if rng.random() < 0.3:
                due = now + rng.randint(1, 20)
                schedule.push_timer(item, due)
                model[seq] = ("timer", due)
            else:
                schedule.push_ready(item)
                model[seq] = ("ready", 0.0)
        elif action < 0.55:  # receive one
            got = schedule.pop_ready()
            expected = min((s for s, (st, _) in model.items() if st == "ready"), default=None)
            assert (got.seq if got else None) == expected
            if got is not None:
                got.gen += 1
                due = now + rng.randint(0, 15)
                schedule.push_timer(got, due)
                model[got.seq] = ("timer", due)
        elif action < 0.7 and model:  # change the visibility of an item waiting on a timer
            waiting = [s for s, (st, _) in model.items() if st == "timer"]
            if waiting:
                item = by_seq[rng.choice(waiting)]
                item.gen += 1
                due = now + rng.randint(0, 15)
                schedule.push_timer(item, due)
                model[item.seq] = ("timer", due)
        elif action < 0.85 and model:  # delete any item
            item = by_seq[rng.choice(list(model))]
            item.gen += 1
            item.slot = -1
            del model[item.seq]
        else:  # time passes: what fell due becomes ready, the oldest expire
            now += rng.choice([0.0, 1.0, 2.5, 7.0])
            due_now = sorted((d, s) for s, (st, d) in model.items() if st == "timer" and d <= now)
            got_due = schedule.pop_due(now)
            assert [i.seq for i in got_due] == [s for _, s in due_now]
            for item in got_due:
                item.gen += 1
                schedule.push_ready(item)
                model[item.seq] = ("ready", 0.0)
            oldest = now - 40.0
            expired = sorted(s for s in model if by_seq[s].sent_at <= oldest)
            assert [i.seq for i in schedule.pop_expired(oldest)] == expired
            for s in expired:
                by_seq[s].gen += 1
                by_seq[s].slot = -1
                del model[s]
        timers = [d for st, d in model.values() if st == "timer"]
        assert schedule.next_due() == (min(timers) if timers else None)
        n_ready = sum(1 for st, _ in model.values() if st == "ready")
        before = containers(schedule)
        schedule.compact(ready=n_ready, waiting=len(timers), stored=len(model))
        after = containers(schedule)
        rebuilds += sum(a is not b for a, b in zip(before, after, strict=True))
        for held in (ready_items(schedule), schedule.timers, age_items(schedule)):
            assert len(held) <= threshold + 2 * len(model)
    assert rebuilds >= 3  # the heaps were rebuilt along the way, and stayed right
