"""``mock_sqs``: decorator, context manager and ``start()``/``stop()``, and the handle it gives.

A ``MockSQS`` holds options; activating it (``start()``, ``with``, or a decorated call) builds a
fresh, empty backend and puts the mock on top of the interception stack. Activations of the same
object nest by counting, so ``with m: with m:`` or a decorated function calling itself share one
state and only the outermost exit deactivates; distinct mocks nest as a stack, the innermost one
answering.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar, overload

import wrapt

from ._adapters import botocore as _botocore
from ._engine import Backend, Clock, MessageView, make_clock
from ._runtime import Runtime
from ._testing.chaos import Delivery, as_delivery
from ._testing.faults import Faults
from ._testing.journal import DEFAULT_LIMIT, Journal

if TYPE_CHECKING:
    from ._testing.lambda_events import LambdaRun

__all__ = ["MockSQS", "mock_sqs"]

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

DEFAULT_REGION = "us-east-1"
DEFAULT_ACCOUNT = "123456789012"
DEFAULT_NAMESPACE = "sqsmock:"


class MockSQS:
    """An SQS mock: use it as a decorator, a context manager, or with ``start()``/``stop()``."""

    def __init__(
        self,
        *,
        region: str = DEFAULT_REGION,
        account_id: str = DEFAULT_ACCOUNT,
        clock: str | Clock | None = "wall",
        persistence: Any = None,
        namespace: str = DEFAULT_NAMESPACE,
        journal_limit: int | None = DEFAULT_LIMIT,
        delivery: Delivery | dict[str, Any] | None = None,
    ) -> None:
        if not isinstance(account_id, str) or not (account_id.isdigit() and len(account_id) == 12):
            raise ValueError(f"account_id must be a 12-digit string, not {account_id!r}")
        make_clock(clock)  # reject a bad clock option now, not at the first activation
        if not isinstance(namespace, str) or not namespace:
            raise ValueError("namespace must be a non-empty string")
        self.region = region
        self.account_id = account_id
        self.persistence = persistence
        self.namespace = namespace
        Journal(journal_limit)  # reject a bad limit now
        self.journal_limit = journal_limit
        self.delivery = as_delivery(delivery)
        self._clock_option = clock
        self._runtime: Runtime | None = None
        self._depth = 0
        self._lock = threading.Lock()

    # -- activation -------------------------------------------------------------------------

    def start(self) -> MockSQS:
        """Activate the mock (with empty state, unless already active); returns the handle."""
        with self._lock:
            if self._depth == 0:
                self._runtime = Runtime(
                    region=self.region,
                    account=self.account_id,
                    clock=self._clock_option,
                    persistence=self.persistence,
                    namespace=self.namespace,
                    journal_limit=self.journal_limit,
                    delivery=self.delivery,
                )
                _botocore.activate(self._runtime)
            self._depth += 1
        return self

    def stop(self) -> None:
        """Undo one ``start()``; the outermost one deactivates. Extra calls do nothing."""
        with self._lock:
            if self._depth == 0:
                return
            self._depth -= 1
            if self._depth == 0:
                runtime, self._runtime = self._runtime, None
                if runtime is not None:
                    _botocore.deactivate(runtime)
                    runtime.close()

    @property
    def active(self) -> bool:
        return self._depth > 0

    def __enter__(self) -> MockSQS:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self) -> MockSQS:
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
            raise RuntimeError("this mock_sqs is not active; start() it or enter it first")
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

    def peek(self, queue: str) -> list[MessageView]:
        """Every message of ``queue`` (URL or name), without changing anything."""
        return self.runtime.peek(queue)

    # -- testing failure ----------------------------------------------------------------------

    @property
    def calls(self) -> Journal:
        """Every SQS call answered, in order: ``calls.of("SendMessage")``, ``calls.clear()``."""
        return self.runtime.journal

    @property
    def faults(self) -> Faults:
        """Fault injection: ``faults.add(operation, error=..., times=... | probability=...)``."""
        return self.runtime.faults

    def chaos(
        self,
        *,
        duplicates: float = 0.0,
        reorder: float = 0.0,
        empty_receives: float = 0.0,
        seed: int | str | None = None,
        queue: str | None = None,
    ) -> Delivery:
        """At-least-once delivery on standard queues (all, or the one named ``queue``): each
        argument a probability -- a message delivered again later, a receive's messages
        shuffled, a short poll answering empty while messages wait. ``seed`` makes it
        repeatable. Returns the settings in force (with the seed chosen, if none was given);
        ``chaos()`` with no probabilities ends them."""
        delivery = Delivery(duplicates, reorder, empty_receives, seed)
        found = self.runtime.chaos.set(delivery if delivery.any else None, queue)
        return found if found is not None else delivery

    def lambda_event(self, queue: str, max_messages: int = 10) -> dict[str, Any]:
        """Receive up to ``max_messages`` from ``queue`` and return them as the event Lambda's
        SQS event source hands a function (``{"Records": [...]}``)."""
        from ._testing.lambda_events import lambda_event

        return lambda_event(self.runtime, queue, max_messages)

    def run_lambda(
        self,
        handler: Callable[[dict[str, Any], Any], Any],
        queue: str,
        *,
        batch_size: int = 10,
        report_batch_item_failures: bool = True,
        context: Any = None,
        max_batches: int | None = None,
    ) -> LambdaRun:
        """Drive ``handler(event, context)`` as a Lambda event-source mapping on ``queue`` would
        until the queue has nothing visible: receive a batch, invoke, delete what succeeded.
        Messages the handler reports in ``batchItemFailures`` (or all of a batch when it
        raises) stay and come back after their visibility timeout -- or go to the dead-letter
        queue by the redrive policy. Returns a summary (``LambdaRun``)."""
        from ._testing.lambda_events import run_lambda

        return run_lambda(
            self.runtime,
            handler,
            queue,
            batch_size=batch_size,
            report_batch_item_failures=report_batch_item_failures,
            context=context,
            max_batches=max_batches,
        )

    # -- decorating -------------------------------------------------------------------------

    @overload
    def __call__(self, target: type[T]) -> type[T]: ...

    @overload
    def __call__(self, target: F) -> F: ...

    def __call__(self, target: Any) -> Any:
        if isinstance(target, type):
            return self._decorate_class(target)
        if not callable(target):
            raise TypeError(f"mock_sqs cannot decorate {target!r}")
        return self._decorate_function(target)

    def _decorate_function(self, func: F) -> F:
        if inspect.iscoroutinefunction(func):

            @wrapt.decorator
            async def async_wrapper(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
                with self:
                    return await wrapped(*args, **kwargs)

            return async_wrapper(func)  # type: ignore[return-value]

        @wrapt.decorator
        def wrapper(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
            with self:
                return wrapped(*args, **kwargs)

        return wrapper(func)  # type: ignore[return-value]

    def _decorate_class(self, cls: type[T]) -> type[T]:
        import unittest

        if issubclass(cls, unittest.TestCase):
            original = cls.setUp
            mock = self

            @functools.wraps(original)
            def setUp(test: unittest.TestCase) -> None:
                mock.start()
                test.addCleanup(mock.stop)
                original(test)

            cls.setUp = setUp  # type: ignore[assignment,method-assign]
            return cls
        for name, member in list(vars(cls).items()):
            if name.startswith("test") and callable(member) and not isinstance(member, type):
                setattr(cls, name, self._decorate_function(member))
            elif name.startswith("test") and isinstance(member, (staticmethod, classmethod)):
                setattr(cls, name, type(member)(self._decorate_function(member.__func__)))
        return cls

    def __repr__(self) -> str:
        state = "active" if self.active else "inactive"
        return f"<MockSQS {self.region}/{self.account_id} {state}>"


@overload
def mock_sqs(target: type[T], /) -> type[T]: ...


@overload
def mock_sqs(target: F, /) -> F: ...


@overload
def mock_sqs(
    *,
    region: str = DEFAULT_REGION,
    account_id: str = DEFAULT_ACCOUNT,
    clock: str | Clock | None = "wall",
    persistence: Any = None,
    namespace: str = DEFAULT_NAMESPACE,
    journal_limit: int | None = DEFAULT_LIMIT,
    delivery: Delivery | dict[str, Any] | None = None,
) -> MockSQS: ...


def mock_sqs(target: Any = None, /, **options: Any) -> Any:
    """Mock SQS for every boto3/botocore client in the process.

    ``@mock_sqs`` / ``@mock_sqs(...)`` decorate functions, ``async def`` functions,
    ``unittest.TestCase`` subclasses and plain test classes; ``with mock_sqs() as sqs:`` and
    ``sqs = mock_sqs().start()`` give the handle directly. Options: ``region`` and ``account_id``
    (defaults ``us-east-1`` and ``123456789012``), ``clock`` (``"wall"``, ``"frozen"`` or a
    ``Clock``), ``persistence`` (a redis-py or fakeredis client, or a ``redis://`` URL: state
    survives restarts), ``namespace`` (the Redis key prefix, default ``sqsmock:``),
    ``journal_limit`` (calls kept in ``calls``, default 10 000; None: no limit, 0: none) and
    ``delivery`` (a ``Delivery`` or its keywords as a dict: at-least-once delivery on standard
    queues, see ``chaos()``).
    """
    mock = MockSQS(**options)
    return mock if target is None else mock(target)
