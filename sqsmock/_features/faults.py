"""Fault injection: answer chosen calls with an error, fail chosen batch entries, add latency.

A rule (``Fault``) names the operations and optionally the queue it applies to, what it does --
an error answer for the whole call, a failure for chosen entries of a batch, latency on the
mock's clock, or latency with either -- and how often: the next ``times`` matching calls, each
matching call with ``probability`` (from the rule's own seeded ``random.Random``), or both.

An error answer is the one SQS gives, from the error table: status, code, headers and body are
rendered by the protocol layer like any other error, so an SDK sees a throttled or failed call
exactly as from AWS and its retry logic runs as in production. Rules are checked on the call
path of every adapter (in-process hooks and the HTTP server alike).
"""

from __future__ import annotations

import itertools
import math
import numbers
import random
import string
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .._errors import ERRORS, SqsError, batch_entry_error
from .._service import ACTIONS
from .._service.addresses import split_queue_url
from .journal import queue_name

__all__ = [
    "BATCH_OPERATIONS",
    "MAX_LATENCY",
    "MAX_TIMES",
    "RETRYABLE_ERRORS",
    "Fault",
    "Faults",
    "error_entry",
]

#: Errors an SDK retries by itself (5xx and throttling), the usual faults to inject.
RETRYABLE_ERRORS = (
    "ServiceUnavailable",
    "InternalError",
    "RequestThrottled",
    "ThrottlingException",
)
#: Operations whose entries may fail one by one.
BATCH_OPERATIONS = frozenset(
    {"SendMessageBatch", "DeleteMessageBatch", "ChangeMessageVisibilityBatch"}
)

#: The most latency a rule adds to a call, in seconds of mock time: botocore's default read
#: timeout, after which an SDK would have given the call up.
MAX_LATENCY = 60.0
#: The most matching calls ``times`` may name.
MAX_TIMES = 1_000_000_000


def _number(name: str, value: object, low: float, high: float, what: str) -> float:
    """``value`` as a float, if it is a finite number from ``low`` to ``high`` (not a bool)."""
    number = math.nan
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:  # an int too large for a float
            number = math.inf
    if not (math.isfinite(number) and low <= number <= high):
        raise ValueError(f"{name} must be {what}, not {value!r}")
    return number


def _checked_times(times: object) -> int | None:
    if times is None:
        return None
    if not isinstance(times, int) or isinstance(times, bool) or not 1 <= times <= MAX_TIMES:
        raise ValueError(f"times must be a whole number from 1 to {MAX_TIMES}, not {times!r}")
    return times


def error_entry(error: str) -> str:
    """The error-table entry for ``error``: an entry name, or the code (``Error.Code``) or the
    shape (the modeled exception's name) of one."""
    if error in ERRORS:
        return error
    for name, spec in ERRORS.items():
        if error in (spec.code, spec.shape):
            return name
    raise ValueError(
        f"unknown SQS error {error!r}: use an entry of sqsmock's error table, e.g. "
        f"{', '.join(RETRYABLE_ERRORS)}, QueueDoesNotExist, ReceiptHandleIsInvalid"
    )


def _error(entry: str, params: Mapping[str, Any]) -> SqsError:
    """The error of entry ``entry``; template fields not given read ``<field>``."""
    fields = {
        name: f"<{name}>"
        for _, name, _, _ in string.Formatter().parse(ERRORS[entry].template)
        if name
    }
    fields.update(params)
    return SqsError(entry, **fields)


_ids = itertools.count(1)


class Fault:
    """One fault-injection rule; ``fired`` counts the calls it changed, ``remove()`` ends it."""

    def __init__(
        self,
        owner: Faults,
        operations: frozenset[str] | None,
        queue: str | None,
        error: str | None,
        error_params: Mapping[str, Any],
        entry_error: str | None,
        entries: frozenset[str] | None,
        latency: float,
        times: int | None,
        probability: float | None,
        seed: int | str | None,
    ) -> None:
        self._owner = owner
        self.operations = operations
        self.queue = queue
        self.error = error
        self.error_params = dict(error_params)
        self.entry_error = entry_error
        self.entries = entries
        self.latency = latency
        #: Calls it may still change (None: no limit).
        self.remaining = times
        self.probability = probability
        self.fired = 0
        #: Names the rule (the server's ``DELETE /_sqsmock/faults/<id>``).
        self.id = f"f{next(_ids)}"
        self._random = random.Random(seed)

    @property
    def active(self) -> bool:
        return self.remaining is None or self.remaining > 0

    @property
    def answers(self) -> bool:
        """Does it change the answer (rather than only delay it)?"""
        return self.error is not None or self.entry_error is not None

    def applies_to(self, operation: str) -> bool:
        return self.operations is None or operation in self.operations

    def matches(self, operation: str, params: Mapping[str, Any]) -> bool:
        if self.operations is not None and operation not in self.operations:
            return False
        return self.queue is None or queue_name(params) == self.queue

    def fire(self) -> bool:
        """Does it act on this matching call? (Spends one of ``times``.)"""
        if self.remaining is not None and self.remaining <= 0:
            return False
        if self.probability is not None and self._random.random() >= self.probability:
            return False
        if self.remaining is not None:
            self.remaining -= 1
        self.fired += 1
        return True

    def make_error(self) -> SqsError:
        assert self.error is not None
        return _error(self.error, self.error_params)

    def fail_entries(self, entries: list[Any]) -> tuple[list[Any], list[dict[str, object]]]:
        """(the entries to run, the ``Failed`` entries answered for the others)."""
        assert self.entry_error is not None
        kept: list[Any] = []
        failed: list[dict[str, object]] = []
        for entry in entries:
            entry_id = entry.get("Id") if isinstance(entry, dict) else None
            if isinstance(entry_id, str) and (self.entries is None or entry_id in self.entries):
                failed.append(
                    batch_entry_error(entry_id, _error(self.entry_error, self.error_params))
                )
            else:
                kept.append(entry)
        return kept, failed

    def remove(self) -> None:
        self._owner.remove(self)

    def __repr__(self) -> str:
        what = self.error or (f"entries {self.entry_error}" if self.entry_error else "latency")
        ops = "any" if self.operations is None else ",".join(sorted(self.operations))
        return f"<Fault {ops} {what} fired={self.fired} remaining={self.remaining}>"


class Outcome:
    """What the rules decided for one call: added latency, and the rule that answers (if any)."""

    __slots__ = ("latency", "rule")

    def __init__(self, latency: float, rule: Fault | None) -> None:
        self.latency = latency
        self.rule = rule


class Faults:
    """The fault-injection rules of one mock (``handle.faults``)."""

    def __init__(self) -> None:
        #: Rules still active, in the order they were added (the first matching one answers).
        self.rules: list[Fault] = []
        self._lock = threading.Lock()

    def add(
        self,
        operation: str | Iterable[str] | None = None,
        *,
        error: str | None = None,
        times: int | None = None,
        probability: float | None = None,
        queue: str | None = None,
        entry_error: str | None = None,
        entries: Iterable[str] | None = None,
        latency: float = 0.0,
        error_params: Mapping[str, Any] | None = None,
        seed: int | str | None = None,
    ) -> Fault:
        """Add a rule; returns it (``fault.fired``, ``fault.remove()``).

        ``operation``: an SQS operation name or several (None: every operation). ``error``: an
        error to answer the whole call with -- an entry of sqsmock's error table or an SQS
        error code, e.g. ``"ServiceUnavailable"``, ``"InternalError"``, ``"RequestThrottled"``,
        ``"ThrottlingException"``, ``"QueueDoesNotExist"``. ``entry_error``: instead, fail
        entries of a batch call (``entries``: their Ids; None: all) with this error, running
        the others. ``latency``: seconds the call takes on the mock's clock, from 0 to
        ``MAX_LATENCY`` (60). ``times``: only the next N matching calls (1 to ``MAX_TIMES``);
        ``probability``: each matching call with this chance, from 0 to 1 (``seed``, a whole
        number or a string, makes the draws repeatable). ``queue``: only calls naming this
        queue (name or URL). ``error_params``: values for the error message's fields.

        Raises ValueError for a rule it cannot keep: among others a number that is not a
        finite one in its range (the server answers 400 with the same message).
        """
        if isinstance(operation, str):
            operations: frozenset[str] | None = frozenset({operation})
        elif operation is None:
            operations = None
        else:
            operations = frozenset(operation)
        for name in operations or ():
            if name not in ACTIONS:
                raise ValueError(f"unknown SQS operation {name!r}")
        if error is not None and entry_error is not None:
            raise ValueError("give error (the whole call) or entry_error (batch entries), not both")
        latency = _number(
            "latency", latency, 0.0, MAX_LATENCY, f"a number of seconds from 0 to {MAX_LATENCY:g}"
        )
        if error is None and entry_error is None and not latency:
            raise ValueError("a fault needs error, entry_error or latency")
        if entry_error is not None and (operations is None or not operations <= BATCH_OPERATIONS):
            names = ", ".join(sorted(BATCH_OPERATIONS))
            raise ValueError(f"entry_error applies to batch operations only: {names}")
        if entries is not None and entry_error is None:
            raise ValueError("entries go with entry_error")
        times = _checked_times(times)
        if probability is not None:
            probability = _number("probability", probability, 0.0, 1.0, "a number from 0 to 1")
        if seed is not None and (not isinstance(seed, (int, str)) or isinstance(seed, bool)):
            raise ValueError(f"seed must be a whole number or a string, not {seed!r}")
        ids = None if entries is None or isinstance(entries, str) else list(entries)
        if entries is not None and (ids is None or not all(isinstance(i, str) for i in ids)):
            raise ValueError(
                f"entries must be a list of batch entry Ids (strings), not {entries!r}"
            )
        fault = Fault(
            self,
            operations,
            split_queue_url(queue)[2] if queue is not None else None,
            error_entry(error) if error is not None else None,
            error_params or {},
            error_entry(entry_error) if entry_error is not None else None,
            frozenset(ids) if ids is not None else None,
            latency,
            times,
            probability,
            seed,
        )
        with self._lock:
            self.rules = [*self.rules, fault]
        return fault

    def remove(self, fault: Fault) -> None:
        with self._lock:
            self.rules = [rule for rule in self.rules if rule is not fault]

    def clear(self) -> None:
        """Remove every rule."""
        with self._lock:
            self.rules = []

    def may_apply(self, operation: str) -> bool:
        """Might a rule change a call of ``operation``? (Adapters that must route such calls
        differently -- to let an SDK retry them -- ask this first.)"""
        return any(rule.applies_to(operation) for rule in self.rules)

    def decide(self, operation: str, params: Mapping[str, Any]) -> Outcome | None:
        """Which rules act on this call: the latency they add and the one that answers."""
        latency = 0.0
        chosen: Fault | None = None
        spent = False
        with self._lock:
            for rule in self.rules:
                if not rule.matches(operation, params):
                    continue
                if rule.answers and chosen is not None:
                    continue  # one rule answers a call; this one stays for the next
                if not rule.fire():
                    continue
                latency += rule.latency
                if rule.answers:
                    chosen = rule
                spent = spent or not rule.active
            if spent:
                self.rules = [rule for rule in self.rules if rule.active]
        if chosen is None and not latency:
            return None
        return Outcome(latency, chosen)

    def __iter__(self) -> Iterator[Fault]:
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def __bool__(self) -> bool:
        return bool(self.rules)

    def __repr__(self) -> str:
        return f"<Faults {self.rules!r}>"
