"""``mock_sqs``: decorator, context manager and ``start()``/``stop()``, and the handle it gives.

A ``MockSQS`` holds options; activating it (``start()``, ``with``, or a decorated call) builds a
fresh, empty backend and puts the mock on top of the interception stack. Activations of the same
object nest by counting, so ``with m: with m:`` or a decorated function calling itself share one
state and only the outermost exit deactivates; distinct mocks nest as a stack, the innermost one
answering.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol, TypeAlias, TypeVar, overload

import wrapt

from . import _activation
from ._engine import Clock
from ._handle import DEFAULT_ACCOUNT, DEFAULT_REGION, Handle
from ._store.redis_store import DEFAULT_TIMEOUT
from ._testing.chaos import Delivery
from ._testing.journal import DEFAULT_BYTE_LIMIT, DEFAULT_LIMIT

__all__ = ["ClockOption", "MockSQS", "Persistence", "RedisClient", "mock_sqs"]

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

#: The ``clock=`` option: ``"wall"``, ``"frozen"`` or a ``Clock`` instance.
ClockOption: TypeAlias = Literal["wall", "frozen"] | Clock


class RedisClient(Protocol):
    """What ``persistence=`` needs of a client: a ``redis.Redis`` or ``fakeredis.FakeRedis``."""

    @property
    def pipeline(self) -> Callable[..., Any]: ...

    @property
    def hgetall(self) -> Callable[..., Any]: ...

    @property
    def scan_iter(self) -> Callable[..., Any]: ...


#: The ``persistence=`` option: a Redis client, a ``redis://`` URL, or None (in memory only).
Persistence: TypeAlias = RedisClient | str | None

#: The keyword options of ``mock_sqs``, in the order its documentation gives them.
OPTIONS = (
    "region",
    "account_id",
    "clock",
    "persistence",
    "namespace",
    "persistence_timeout",
    "journal_limit",
    "journal_byte_limit",
    "delivery",
    "config",
    "allow_aws",
)

#: ``allow_aws`` of a mock that does not set it; the pytest plugin's ``sqsmock_allow_aws`` ini
#: option sets it for a test session.
ALLOW_AWS_DEFAULT = False


def _options_error(unknown: list[str]) -> TypeError:
    parts = []
    for name in unknown:
        close = difflib.get_close_matches(name, OPTIONS, n=1)
        parts.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    return TypeError(
        f"mock_sqs() got unexpected option{'s' if len(unknown) > 1 else ''} "
        f"{', '.join(parts)}; its options are {', '.join(OPTIONS)}"
    )


def _target_error(target: object) -> TypeError:
    usage = (
        "use @mock_sqs, @mock_sqs(region=..., account_id=..., clock=..., persistence=..., "
        "namespace=...), or with mock_sqs(...) as sqs:"
    )
    if isinstance(target, str):
        return TypeError(
            f"mock_sqs() takes no service name ({target!r}): it mocks SQS only, and takes a "
            f"function or class to decorate, or keyword options; {usage}"
        )
    return TypeError(
        f"mock_sqs() decorates a function or a class, or takes keyword options, not "
        f"{target!r}; {usage}"
    )


class MockSQS(Handle):
    """An SQS mock: use it as a decorator, a context manager, or with ``start()``/``stop()``."""

    _INACTIVE = "this mock_sqs is not active; start() it or enter it first"

    def __init__(
        self,
        *,
        region: str = DEFAULT_REGION,
        account_id: str = DEFAULT_ACCOUNT,
        clock: ClockOption = "wall",
        persistence: Persistence = None,
        namespace: str | None = None,
        persistence_timeout: float = DEFAULT_TIMEOUT,
        journal_limit: int | None = DEFAULT_LIMIT,
        journal_byte_limit: int | None = DEFAULT_BYTE_LIMIT,
        delivery: Delivery | dict[str, Any] | None = None,
        config: str | os.PathLike[str] | Mapping[str, Any] | None = None,
        allow_aws: bool | None = None,
    ) -> None:
        super().__init__(
            region=region,
            account_id=account_id,
            clock=clock,
            persistence=persistence,
            namespace=namespace,
            persistence_timeout=persistence_timeout,
            journal_limit=journal_limit,
            journal_byte_limit=journal_byte_limit,
            delivery=delivery,
            config=config,
        )
        #: May a request to another AWS service that no mock answered reach real AWS?
        self.allow_aws = ALLOW_AWS_DEFAULT if allow_aws is None else bool(allow_aws)
        self._depth = 0
        self._lock = threading.Lock()

    # -- activation -------------------------------------------------------------------------

    def start(self) -> MockSQS:
        """Activate the mock (with empty state, unless already active); returns the handle."""
        with self._lock:
            if self._depth == 0:
                self._runtime = self._new_runtime()
                _activation.activate(self._runtime, allow_aws=self.allow_aws)
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
                    _activation.deactivate(runtime)
                    runtime.close()

    @property
    def active(self) -> bool:
        return self._depth > 0

    # -- decorating -------------------------------------------------------------------------

    @overload
    def __call__(self, target: type[T]) -> type[T]: ...

    @overload
    def __call__(self, target: F) -> F: ...

    def __call__(self, target: Any) -> Any:
        if isinstance(target, type):
            return self._decorate_class(target)
        if not callable(target):
            raise _target_error(target)
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
        self._cover_xunit_fixtures(cls)
        return cls

    def _cover_xunit_fixtures(self, cls: type) -> None:
        """Extend the activation of a plain test class over pytest's xunit-style fixtures.

        ``setup_method`` starts the mock and ``teardown_method`` stops it, so one activation runs
        from the set-up through the test (whose own activation nests in it, sharing its state)
        to the tear-down. ``setup_class``/``teardown_class``, when the class has them, do the same
        around the whole class: what ``setup_class`` creates is there for every test.
        """
        mock = self
        for setup_name, teardown_name, binder in (
            ("setup_method", "teardown_method", _bind_instance),
            ("setup_class", "teardown_class", _bind_class),
        ):
            setup = inspect.getattr_static(cls, setup_name, None)
            teardown = inspect.getattr_static(cls, teardown_name, None)
            if setup_name == "setup_class" and setup is None and teardown is None:
                continue

            def setup_wrapper(
                owner: Any, arg: Any = None, _user: Any = setup, _bind: Any = binder
            ) -> None:
                mock.start()
                try:
                    if _user is not None:
                        _call_optional(_bind(_user, owner), arg)
                except BaseException:
                    mock.stop()
                    raise

            def teardown_wrapper(
                owner: Any, arg: Any = None, _user: Any = teardown, _bind: Any = binder
            ) -> None:
                try:
                    if _user is not None:
                        _call_optional(_bind(_user, owner), arg)
                finally:
                    mock.stop()

            for name, wrapper in ((setup_name, setup_wrapper), (teardown_name, teardown_wrapper)):
                wrapper.__name__ = wrapper.__qualname__ = name
                member: Any = classmethod(wrapper) if binder is _bind_class else wrapper
                setattr(cls, name, member)

    def __repr__(self) -> str:
        state = "active" if self.active else "inactive"
        return f"<MockSQS {self.region}/{self.account_id} {state}>"


def _bind_instance(member: Any, test: Any) -> Callable[..., Any]:
    """A ``setup_method``-like class member, bound to the test instance."""
    bound: Callable[..., Any] = member.__get__(test, type(test))
    return bound


def _bind_class(member: Any, cls: type) -> Callable[..., Any]:
    """A ``setup_class``-like class member (classmethod, staticmethod or plain), bound to the
    class as pytest would call it."""
    if isinstance(member, (classmethod, staticmethod)):
        bound: Callable[..., Any] = member.__get__(None, cls)
        return bound
    return functools.partial(member, cls) if _takes_argument(member) else member


def _takes_argument(func: Callable[..., Any]) -> bool:
    try:
        return bool(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return True


def _call_optional(func: Callable[..., Any], arg: Any) -> None:
    """Call ``func(arg)`` when it takes an argument, else ``func()`` (as pytest does)."""
    if _takes_argument(func):
        func(arg)
    else:
        func()


@overload
def mock_sqs(target: type[T], /) -> type[T]: ...


@overload
def mock_sqs(target: F, /) -> F: ...


@overload
def mock_sqs(
    *,
    region: str = DEFAULT_REGION,
    account_id: str = DEFAULT_ACCOUNT,
    clock: ClockOption = "wall",
    persistence: Persistence = None,
    namespace: str | None = None,
    persistence_timeout: float = DEFAULT_TIMEOUT,
    journal_limit: int | None = DEFAULT_LIMIT,
    journal_byte_limit: int | None = DEFAULT_BYTE_LIMIT,
    delivery: Delivery | dict[str, Any] | None = None,
    config: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    allow_aws: bool | None = None,
) -> MockSQS: ...


def mock_sqs(target: Any = None, /, **options: Any) -> Any:
    """Mock SQS for every boto3/botocore client in the process.

    ``@mock_sqs`` / ``@mock_sqs(...)`` decorate functions, ``async def`` functions,
    ``unittest.TestCase`` subclasses and plain test classes; ``with mock_sqs() as sqs:`` and
    ``sqs = mock_sqs().start()`` give the handle directly. Options: ``region`` and ``account_id``
    (defaults ``us-east-1`` and ``123456789012``), ``clock`` (``"wall"``, ``"frozen"`` or a
    ``Clock``), ``persistence`` (a redis-py or fakeredis client, or a ``redis://`` URL: state
    survives restarts), ``namespace`` (the Redis key prefix, default ``sqsmock:``, per worker
    under pytest-xdist), ``persistence_timeout`` (seconds a client built from a URL waits for
    Redis, default 5), ``journal_limit`` (calls kept in ``calls``, default 10 000; None: no
    limit, 0: none), ``journal_byte_limit`` (bytes ``calls`` keeps, default 64 MiB; None: no
    limit), ``delivery`` (a ``Delivery`` or its keywords as a dict: at-least-once
    delivery on standard queues, see ``chaos()``), ``config`` (queues to create at every
    start and reset: a TOML file's path, an ElasticMQ ``.conf``, or a dict of the same shape;
    an error in it raises ``sqsmock.ConfigError`` before anything is created) and
    ``allow_aws`` (let a botocore request to real AWS that no mock answered go out; by default
    it is refused).
    """
    unknown = [name for name in options if name not in OPTIONS]
    if unknown:
        raise _options_error(unknown)
    if target is not None and (isinstance(target, str) or not callable(target)):
        raise _target_error(target)
    mock = MockSQS(**options)
    return mock if target is None else mock(target)
