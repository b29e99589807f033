"""``mock_sqs``: decorator, context manager and ``start()``/``stop()``, and the handle it gives.

A ``MockSQS`` holds options; activating it (``start()``, ``with``, or a decorated call) builds a
fresh, empty backend and puts the mock on top of the interception stack. Activations of the same
object nest by counting, so ``with m: with m:`` or a decorated function calling itself share one
state and only the outermost exit deactivates.

Distinct mocks nest as a stack: the inner one gets a state of its own and answers until it
stops. With ``join`` (the ``sqsmock_join`` ini option for a whole test session), a mock started
while the answering mock has the same options *joins* it instead: it shares that state, and its
stop leaves it running -- moto's nesting, where nested ``mock_aws()`` share one state, so that
fixtures written for moto (one creating the queue inside ``with mock_aws():``, another using it
inside its own) work unchanged. A nested mock with other options (another account, region,
clock, persistence, declared queues) still gets its own state.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, overload

import wrapt

from . import _activation
from ._features.chaos import Delivery
from ._handle import Handle
from ._options import ClockOption, MockOptions, Persistence, RedisClient, describe

__all__ = ["ClockOption", "MockOptions", "MockSQS", "Persistence", "RedisClient", "mock_sqs"]

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


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

    def __init__(self, options: MockOptions | None = None, /, **keywords: Any) -> None:
        if options is None:
            options = MockOptions.from_keywords(keywords, "mock_sqs")
        elif keywords:
            raise TypeError("MockSQS() takes a MockOptions or keyword options, not both")
        super().__init__(options)
        self.options: MockOptions = options
        #: May a request to another AWS service that no mock answered reach real AWS?
        self.allow_aws = options.allow_aws
        self._depth = 0
        self._lock = threading.Lock()
        #: The active mock this one joined (``start()`` found it answering, with equal options).
        self._host: MockSQS | None = None

    # -- activation -------------------------------------------------------------------------

    def start(self) -> MockSQS:
        """Activate the mock (with empty state, unless already active, or -- with ``join`` --
        joining the answering mock of the same options); returns the handle."""
        with self._lock:
            if self._depth == 0:
                with _owners_lock:
                    host = _joinable(self.options)
                    if host is not None:
                        self._host, self._runtime = host, host._runtime
                    else:
                        self._runtime = self._new_runtime()
                        self._runtime.sns = self.options.sns
                        _activation.activate(self._runtime, allow_aws=self.allow_aws)
                        _owners.append(self)
            self._depth += 1
        return self

    def stop(self) -> None:
        """Undo one ``start()``; the outermost one deactivates (unless the mock joined another,
        which goes on). Extra calls do nothing."""
        with self._lock:
            if self._depth == 0:
                return
            self._depth -= 1
            if self._depth == 0:
                runtime, self._runtime = self._runtime, None
                if self._host is not None:
                    self._host = None
                    return
                with _owners_lock:
                    if self in _owners:
                        _owners.remove(self)
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


#: The active mocks that put their runtime on the interception stack, innermost last (a mock
#: that joined another is not among them).
_owners: list[MockSQS] = []
_owners_lock = threading.Lock()


def _joinable(options: MockOptions) -> MockSQS | None:
    """The active mock a mock with ``options`` joins: with ``join``, the one answering, if its
    other options are equal. The caller holds ``_owners_lock``."""
    if not _owners:
        return None
    host = _owners[-1]
    runtime = host._runtime
    if not options.join or runtime is None or runtime is not _activation.innermost():
        return None
    return host if dataclasses.replace(host.options, join=True) == options else None


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
    region: str = ...,
    account_id: str = ...,
    clock: ClockOption = ...,
    persistence: Persistence = ...,
    namespace: str | None = ...,
    persistence_timeout: float = ...,
    journal_limit: int | None = ...,
    journal_byte_limit: int | None = ...,
    delivery: Delivery | dict[str, Any] | None = ...,
    config: str | os.PathLike[str] | Mapping[str, Any] | None = ...,
    elasticmq: bool | None = ...,
    allow_aws: bool | None = ...,
    join: bool | None = ...,
    sns: bool = ...,
) -> MockSQS: ...


def mock_sqs(target: Any = None, /, **options: Any) -> Any:
    """Mock SQS for every boto3/botocore client in the process.

    ``@mock_sqs`` / ``@mock_sqs(...)`` decorate functions, ``async def`` functions,
    ``unittest.TestCase`` subclasses and plain test classes; ``with mock_sqs() as sqs:`` and
    ``sqs = mock_sqs().start()`` give the handle directly. Its options are checked at once: a
    misspelt one raises TypeError, a bad value ValueError (``sqsmock.ConfigError`` for an error
    in ``config``), before anything is created.
    """
    MockOptions.check_names(options, "mock_sqs")
    if target is not None and (isinstance(target, str) or not callable(target)):
        raise _target_error(target)
    mock = MockSQS(MockOptions(**options))
    return mock if target is None else mock(target)


if mock_sqs.__doc__ is not None:  # None under python -OO
    mock_sqs.__doc__ += f"\n    Options (``MockOptions``):\n\n{describe(MockOptions, '    ')}\n"
