"""What ``mock_sqs``'s handle and ``serve()``'s have in common.

Both take the same state options (region, account, clock, persistence and its namespace and
time-out, journal limit, delivery), build a ``Runtime`` from them when activated, and give the
same handle onto it: ``clock``, ``reset()``, ``peek()``, the testing-failure tools, ``with`` and
``async with``. Only how a runtime is reached differs: ``MockSQS`` puts it under the in-process
adapters, ``SqsServer`` behind an HTTP server; each implements ``start()`` and ``stop()``.
"""

from __future__ import annotations

import re
from types import TracebackType
from typing import Any, TypeVar

from . import _regions
from ._declare import Declarations, load
from ._engine import Backend, Clock, MessageView, make_clock
from ._runtime import Runtime
from ._service._context import split_path
from ._store import check_timeout, default_namespace
from ._testing.chaos import Delivery, as_delivery
from ._testing.handle import FailureTools
from ._testing.journal import CallJournal

__all__ = [
    "DEFAULT_ACCOUNT",
    "DEFAULT_NAMESPACE",
    "DEFAULT_REGION",
    "Handle",
    "check_options",
    "check_region",
]

DEFAULT_REGION = "us-east-1"
DEFAULT_ACCOUNT = "123456789012"
DEFAULT_NAMESPACE = "sqsmock:"
_ACCOUNT_ID = re.compile(r"[0-9]{12}")

H = TypeVar("H", bound="Handle")


def check_region(region: object) -> None:
    """Refuse a region name AWS does not have (a typo such as ``"us-east-l"``)."""
    _regions.check_region(region)


def check_options(region: object, account_id: object, namespace: object) -> None:
    """Refuse a bad region, account or namespace (``sqsmock serve`` checks its arguments too)."""
    check_region(region)
    if not isinstance(account_id, str) or not _ACCOUNT_ID.fullmatch(account_id):
        raise ValueError(f"account_id must be a 12-digit string, not {account_id!r}")
    if not isinstance(namespace, str) or not namespace:
        raise ValueError("namespace must be a non-empty string")


class Handle(FailureTools):
    """The options of a mock or server, and the handle onto its active runtime."""

    #: What ``runtime`` says when there is none.
    _INACTIVE = "this handle is not active; start() it or enter it first"

    def __init__(
        self,
        *,
        region: str,
        account_id: str,
        clock: Any,
        persistence: Any,
        namespace: str | None,
        persistence_timeout: float,
        journal_limit: int | None,
        journal_byte_limit: int | None,
        delivery: Delivery | dict[str, Any] | None,
        config: Any = None,
    ) -> None:
        namespace = default_namespace() if namespace is None else namespace
        check_options(region, account_id, namespace)
        make_clock(clock)  # reject a bad clock option now, not at the first activation
        CallJournal(journal_limit, journal_byte_limit)  # reject a bad limit now
        self.region = region
        self.account_id = account_id
        self.persistence = persistence
        self.namespace = namespace
        self.persistence_timeout = check_timeout(persistence_timeout)
        self.journal_limit = journal_limit
        self.journal_byte_limit = journal_byte_limit
        self.delivery = as_delivery(delivery)
        self._clock_option = clock
        #: Queues declared ahead (``config=``): read and checked now, created at each start.
        self.declarations: Declarations | None = None if config is None else load(config)
        if self.declarations is not None:
            self.declarations.check(region, account_id)
        self._runtime: Runtime | None = None

    def _new_runtime(self) -> Runtime:
        """A fresh runtime from these options, for an activation."""
        runtime = Runtime(
            region=self.region,
            account=self.account_id,
            clock=self._clock_option,
            persistence=self.persistence,
            namespace=self.namespace,
            persistence_timeout=self.persistence_timeout,
            journal_limit=self.journal_limit,
            delivery=self.delivery,
            declarations=self.declarations,
        )
        runtime.journal.byte_limit = self.journal_byte_limit
        return runtime

    # -- activation: start() and stop() are each front end's own ------------------------------

    def start(self: H) -> H:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self: H) -> H:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self: H) -> H:
        return self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- the handle -------------------------------------------------------------------------

    @property
    def runtime(self) -> Runtime:
        runtime = self._runtime
        if runtime is None:
            raise RuntimeError(self._INACTIVE)
        return runtime

    @property
    def backend(self) -> Backend:
        return self.runtime.backend

    @property
    def clock(self) -> Clock:
        """The virtual clock: ``now()``, ``advance(seconds | timedelta)``."""
        return self.runtime.clock

    def reset(self) -> None:
        """Drop every queue and message."""
        self.runtime.reset()

    def peek(self, queue: str, *, region: str | None = None) -> list[MessageView]:
        """Every message of ``queue`` (URL or name), without changing anything.

        ``region``: where to look (default: the handle's region; a queue URL's host is ignored).
        """
        runtime = self.runtime
        try:
            return runtime.peek(queue, region)
        except LookupError:
            others = self._regions_holding(queue, region or self.region)
            if not others:
                raise
            where = " and ".join(repr(r) for r in others)
            raise LookupError(
                f"queue {queue!r} does not exist in region {region or self.region!r} of this "
                f"mock, but in {where}: peek({queue!r}, region={others[0]!r})"
            ) from None

    def _regions_holding(self, queue: str, searched: str) -> list[str]:
        """Other regions of this mock that hold a queue of that name (and account)."""
        _, account, name = split_path(queue)
        account = account or self.account_id
        return sorted(
            {
                q.region
                for q in self.backend.queues()
                if q.name == name and q.account == account and q.region != searched
            }
        )
