"""One activation of sqsmock: the clock, the store, the engine, and the door calls come in by.

``mock_sqs`` (in-process) and ``serve`` (the HTTP server) each build a ``Runtime`` when they
start and close it when they stop. Adapters hand it calls (``call``/``call_async``); it runs them
through the protocol layer against its backend. The handle's ``clock``, ``reset()`` and
``peek()`` are read from it too.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any, TypeVar

from . import _protocol
from ._engine import Backend, Clock, MessageView, make_clock
from ._errors import SqsError
from ._protocol import Caller, Result
from ._service import Request
from ._store.redis_store import DEFAULT_TIMEOUT

__all__ = ["Runtime"]

T = TypeVar("T")


class Runtime:
    """The live state behind an active mock or server."""

    def __init__(
        self,
        *,
        region: str,
        account: str,
        clock: str | Clock | None = "wall",
        persistence: Any = None,
        namespace: str = "sqsmock:",
        persistence_timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.region = region
        self.account = account
        self._backend: Backend | None = _open_backend(
            make_clock(clock), region, account, persistence, namespace, persistence_timeout
        )
        #: The engine does blocking I/O (a store): async callers run its calls off the loop.
        self.blocking = persistence is not None

    @property
    def backend(self) -> Backend:
        backend = self._backend
        if backend is None:
            raise RuntimeError("this sqsmock is not active; start() it or enter it first")
        return backend

    @property
    def backend_or_none(self) -> Backend | None:
        return self._backend

    @property
    def clock(self) -> Clock:
        return self.backend.clock

    def close(self) -> None:
        """End waiting long polls and release the store; calls after this are not answered."""
        backend, self._backend = self._backend, None
        if backend is not None:
            backend.close()

    # -- calls ------------------------------------------------------------------------------

    def call(self, operation: str, params: Request, caller: Caller) -> Result:
        """Answer one call; a long poll blocks this thread."""
        return _protocol.call(self.backend, operation, params, caller)

    async def call_async(self, operation: str, params: Request, caller: Caller) -> Result:
        """Answer one call; a long poll awaits without blocking the event loop."""
        run = _in_thread if self.blocking else None
        return await _protocol.call_async(self.backend, operation, params, caller, run)

    # -- the handle -------------------------------------------------------------------------

    def reset(self) -> None:
        self.backend.reset()

    def peek(self, queue: str, region: str | None = None) -> list[MessageView]:
        """Every message of ``queue`` (URL or name), without changing anything."""
        from ._service import Call

        call = Call(self.backend, region or self.region, self.account, {})
        try:
            found = call.queue({"QueueUrl": queue})
        except SqsError:
            raise LookupError(f"queue {queue!r} does not exist in this mock") from None
        found.settle()
        return found.peek()


async def _in_thread(func: Callable[[], T]) -> T:
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, functools.partial(func))


def _open_backend(
    clock: Clock, region: str, account: str, persistence: Any, namespace: str, timeout: float
) -> Backend:
    """A backend: empty, or loaded from the persistence store (taking its ownership lease)."""
    if persistence is None:
        return Backend(clock, region, account)
    from ._store.redis_store import open_store

    store = open_store(persistence, namespace, timeout)
    backend = Backend(clock, region, account, store)
    try:
        backend.load(store.load())
    except ValueError as error:
        backend.close()
        raise store.corrupted(str(error)) from None
    except BaseException:
        backend.close()
        raise
    return backend
