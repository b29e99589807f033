"""Large admin answers built a slice at a time, with the event loop free between slices.

``/_sqsmock/queues`` and ``/_sqsmock/metrics`` describe every queue; a server can hold tens of
thousands, and reading each one's counts and writing it out in one go would hold the loop --
and with it every other client's SQS calls -- for as long as that takes. ``in_slices`` reads
and renders ``SLICE`` items at a time (through ``run_engine``, as any engine work), yielding to
the loop after each, so another request waits at most one slice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

__all__ = ["SLICE", "in_slices", "sorted_queues"]

#: Queues read and rendered at a time.
SLICE = 256

T = TypeVar("T")
R = TypeVar("R")


async def in_slices(
    runtime: Any, items: Sequence[T], render: Callable[[Sequence[T]], list[R]]
) -> list[R]:
    """``render`` applied to ``items`` a slice at a time (each in ``runtime.run_engine``),
    letting the loop run other work between two slices."""
    out: list[R] = []
    for start in range(0, len(items), SLICE):
        if start:
            await asyncio.sleep(0)  # the loop runs what became ready meanwhile
        part = items[start : start + SLICE]
        out += await runtime.run_engine(lambda part=part: render(part))
    return out


def sorted_queues(backend: Any) -> list[Any]:
    """The backend's queues by region, account and name (as the admin answers list them)."""
    return sorted(backend.queues(), key=lambda q: (q.region, q.account, q.name))
