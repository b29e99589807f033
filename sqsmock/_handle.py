"""What ``mock_sqs``'s handle and ``serve()``'s have in common.

Both take the same state options (``_options.StateOptions``: region, account, clock,
persistence, journal limits, delivery, declared queues), build a ``Runtime`` from them when
activated, and give the same handle onto it: ``clock``, ``reset()``, ``peek()``, the
testing-failure tools, ``with`` and ``async with``. Only how a runtime is reached differs:
``MockSQS`` puts it under the in-process adapters, ``SqsServer`` behind an HTTP server; each
implements ``start()`` and ``stop()``.
"""

from __future__ import annotations

from types import TracebackType
from typing import TypeVar

from ._engine import Backend, Clock, MessageView
from ._handle_tools import FailureTools
from ._options import DEFAULT_ACCOUNT, DEFAULT_REGION, StateOptions, check_options, check_region
from ._runtime import Runtime
from ._service.addresses import split_queue_url
from ._store import DEFAULT_NAMESPACE

__all__ = [
    "DEFAULT_ACCOUNT",
    "DEFAULT_NAMESPACE",
    "DEFAULT_REGION",
    "Handle",
    "check_options",
    "check_region",
]

H = TypeVar("H", bound="Handle")


class Handle(FailureTools):
    """The options of a mock or server, and the handle onto its active runtime."""

    #: What ``runtime`` says when there is none.
    _INACTIVE = "this handle is not active; start() it or enter it first"

    def __init__(self, options: StateOptions) -> None:
        #: The options, checked and with their defaults filled in.
        self.options = options
        self.region = options.region
        self.account_id = options.account_id
        self.persistence = options.persistence
        self.namespace = options.namespace
        self.persistence_timeout = options.persistence_timeout
        self.journal_limit = options.journal_limit
        self.journal_byte_limit = options.journal_byte_limit
        self.delivery = options.delivery
        #: Queues declared ahead (``config=``): read and checked now, created at each start.
        self.declarations = options.declarations
        self._runtime: Runtime | None = None

    def _new_runtime(self) -> Runtime:
        """A fresh runtime from these options, for an activation."""
        return Runtime(self.options)

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

    def peek(
        self, queue: str, *, region: str | None = None, limit: int | None = None
    ) -> list[MessageView]:
        """Every message of ``queue`` (URL or name), without changing anything.

        ``region``: where to look (default: the handle's region; a queue URL's host is ignored).
        ``limit``: only the first ``limit`` messages (None: all), without viewing the rest.
        """
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            raise TypeError(f"limit is a whole number of messages or None, not {limit!r}")
        if limit is not None and limit < 1:
            raise ValueError(f"limit must be at least 1, not {limit}")
        runtime = self.runtime
        try:
            return runtime.peek(queue, region, limit)
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
        _, account, name = split_queue_url(queue)
        account = account or self.account_id
        return sorted(
            {
                q.region
                for q in self.backend.queues()
                if q.name == name and q.account == account and q.region != searched
            }
        )
