"""The express lane: plain SQS calls answered from the socket, below aiohttp's web layer.

Nearly every request a running server sees is an SDK's SQS call: a POST of HTTP/1.1 to an SQS
path with a ``Content-Length``, nothing out of the ordinary. ``Express``, the protocol of every
new connection, reads such a request itself -- its head checked against HTTP's grammar, more
strictly than aiohttp's parser -- passes the guard (``browsers.Guard``) the same way, answers it
through the same ``sqs.begin`` as aiohttp's handler (where the rule for GETs that would change
state is applied, whichever front end read the request), and writes the bytes that handler writes
(``exchange.answer_bytes``). That skips the objects aiohttp builds for any request of any
application (a request, a payload stream, a response, a writer, a task per call).

The first request that is anything else -- another method, version or path (the admin API,
LocalStack's routes, a query string, an escaped or dotted path), a header out of the ordinary
(``Transfer-Encoding``, ``Expect``, ``Content-Encoding``, ``Upgrade``, ``Origin``, a repeated
one), a head the guard refuses or larger than ``HEAD_LIMIT``, a body the client cut short, a
server that is stopping -- hands the connection, with every byte not yet answered, to aiohttp's
own handler for good: aiohttp makes of it what it always would have.

A body that arrives in pieces is waited for, up to ``read_timeout`` after its head (then 408, as
from aiohttp's handler, and the connection closes). A call that waits (a long poll, or any call
when the engine writes to a store) is awaited in a task; the connection reads no further request
until it is answered, and the task is cancelled if the client hangs up (a long poll then ends,
as aiohttp's handler cancellation does). A connection idle for ``idle_timeout`` is closed, as
aiohttp closes its keep-alive connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Callable, Coroutine
from typing import Any

from ..._errors import SqsError
from ..._protocol.http import HttpAnswer, HttpRequest, error_answer
from .browsers import Guard
from .exchange import answer_bytes
from .heads import HEAD_LIMIT, not_ours, read_head
from .served import Served
from .sqs import begin, refused, timed_out

__all__ = ["Express", "Lane"]

log = logging.getLogger("sqsmock.server")

#: A request's own buffer beyond which reading pauses while a call is awaited.
_BUFFER_LIMIT = 1024 * 1024


class Lane:
    """What every express connection of one server shares: the server's routes, its guard,
    aiohttp's handler factory (for connections handed over), the idle timeout, and the calls
    under way (``close`` waits for them)."""

    def __init__(
        self,
        served: Served,
        guard: Guard,
        handler: Callable[[], asyncio.Protocol],
        idle_timeout: float,
        call_started: Callable[[], None],
        call_ended: Callable[[], None],
    ) -> None:
        self.served = served
        self.guard = guard
        self.handler = handler
        self.idle_timeout = idle_timeout
        self.call_started = call_started
        self.call_ended = call_ended
        #: No new call is answered here once the server is stopping: aiohttp's handler
        #: answers it (``ServiceUnavailable``).
        self.stopping = False
        self.connections: set[Express] = set()

    def __call__(self) -> Express:
        return Express(self)

    def close(self) -> None:
        """Close every connection still the lane's (those awaiting a call close once it is
        answered)."""
        for connection in list(self.connections):
            connection.close_when_idle()


class Express(asyncio.Protocol):
    """One connection, answered here until a request needs aiohttp."""

    def __init__(self, lane: Lane) -> None:
        self._lane = lane
        self._loop = asyncio.get_running_loop()
        self._transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        #: The task awaiting a call's answer, if any.
        self._busy: asyncio.Task[None] | None = None
        self._write_paused = False
        self._read_paused = False
        self._eof = False
        self._closing = False  # close once the call under way is answered
        self._last = 0.0  # when the connection last answered (or opened)
        self._timer: asyncio.TimerHandle | None = None
        #: A request whose body is still arriving: where its head ends, the request, where
        #: its body ends, whether the connection closes after it; and the body's deadline
        #: (``read_timeout`` after its head).
        self._pending: tuple[int, HttpRequest, int, bool] | None = None
        self._late: asyncio.TimerHandle | None = None

    # -- asyncio's protocol -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):  # (a client gone already)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as aiohttp does
        self._lane.connections.add(self)
        self._last = self._loop.time()
        self._arm()

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        if self._busy is None and not self._write_paused:
            self._serve()
        self._flow()

    def eof_received(self) -> None:
        """The client sent all it will: answer what can be answered at once (aiohttp's handler
        answers nothing once a client half-closes); the transport then closes, and a call still
        awaited is cancelled, as under aiohttp's handler."""
        self._eof = True
        if self._busy is None and not self._write_paused:
            self._serve()

    def connection_lost(self, exc: BaseException | None) -> None:
        self._transport = None
        self._lane.connections.discard(self)
        self._cancel_timers()
        busy = self._busy
        if busy is not None:
            busy.cancel()  # nobody to answer: a long poll ends

    def pause_writing(self) -> None:
        self._write_paused = True

    def resume_writing(self) -> None:
        self._write_paused = False
        if self._busy is None and self._transport is not None:
            self._serve()
            self._flow()

    def _flow(self) -> None:
        """Stop reading while requests pile up unanswered (a call awaited, a client that does
        not read its answers); read again once they are answered."""
        transport = self._transport
        if transport is None:  # (closed, or aiohttp's now)
            return
        # (A body still arriving is not a pile: the head's Content-Length, within the body
        # limit, bounds it.)
        piled = len(self._buffer) > _BUFFER_LIMIT and (self._busy is not None or self._write_paused)
        if piled != self._read_paused:
            self._read_paused = piled
            if piled:
                transport.pause_reading()
            else:
                transport.resume_reading()

    # -- requests ---------------------------------------------------------------------------

    def _serve(self) -> None:
        """Answer every whole request in the buffer, until one must be awaited or handed over."""
        buffer = self._buffer
        lane = self._lane
        while self._busy is None and not self._write_paused:
            if self._transport is None or self._closing:
                return
            pending = self._pending
            if pending is None:
                end = buffer.find(b"\r\n\r\n")
                if end < 0:
                    if len(buffer) > HEAD_LIMIT or (self._eof and buffer) or not_ours(buffer):
                        self._hand_over()
                    return
                read = None
                if end <= HEAD_LIMIT and not lane.stopping:
                    read = read_head(buffer, end, lane.guard, lane.served.body_limit)
                if read is None:
                    self._hand_over()
                    return
                pending = (end, *read)
            end, http, total, close = pending
            if len(buffer) < total:  # the body is still coming
                if self._eof:  # and never will: aiohttp's to answer
                    self._hand_over()
                elif self._pending is None:
                    self._pending = pending
                    self._late = self._loop.call_later(lane.served.read_timeout, self._body_late)
                    lane.call_started()  # a request being read: stopping waits for it
                return
            awaited = self._drop_pending()  # (the request stays under way until it is answered)
            http.body = bytes(buffer[end + 4 : total])
            del buffer[:total]
            answered = begin(lane.served, http, "")
            if isinstance(answered, HttpAnswer):
                self._answer(http, answered, close)
            else:
                self._await(http, answered, close)
            if awaited:
                lane.call_ended()

    def _await(
        self, http: HttpRequest, pending: Coroutine[Any, Any, HttpAnswer], close: bool
    ) -> None:
        self._lane.call_started()
        task = self._busy = self._loop.create_task(self._finish(http, pending, close))
        # Counted out when the task ends, however it ends: one cancelled before its first
        # step (the client gone at once) never runs a line of ``_finish``.
        task.add_done_callback(lambda _: (pending.close(), self._lane.call_ended()))

    async def _finish(
        self, http: HttpRequest, pending: Coroutine[Any, Any, HttpAnswer], close: bool
    ) -> None:
        try:
            answered = await pending
        except (asyncio.CancelledError, ConnectionError):  # the client hung up
            return
        finally:
            self._busy = None
        if self._transport is None:
            return
        self._answer(http, answered, close or self._closing)
        self._serve()
        self._flow()

    def _answer(self, http: HttpRequest, answered: HttpAnswer, close: bool) -> None:
        transport = self._transport
        assert transport is not None
        data = answer_bytes((1, 1), answered.status, answered.headers, answered.body, not close)
        if data is None:  # a header aiohttp would refuse to send: its handler's 500
            log.error("sqsmock could not send a header of its answer to %s", http.path)
            fault = error_answer(http, SqsError("InternalFailure"))
            data = answer_bytes((1, 1), fault.status, fault.headers, fault.body, not close)
            assert data is not None
        transport.write(data)
        self._last = self._loop.time()
        if close or self._lane.idle_timeout <= 0:  # (no keep-alive: aiohttp closes too)
            self._closing = True
            transport.close()

    def _hand_over(self) -> None:
        """Give the connection, and every byte not yet answered, to aiohttp's handler."""
        transport = self._transport
        assert transport is not None and self._busy is None
        lane = self._lane
        lane.connections.discard(self)
        self._cancel_timers()
        self._transport = None  # every callback from now on is the handler's
        if self._read_paused:
            self._read_paused = False
            transport.resume_reading()
        handler = lane.handler()
        transport.set_protocol(handler)
        handler.connection_made(transport)
        data = bytes(self._buffer)
        self._buffer.clear()
        if data:
            handler.data_received(data)
        if self._eof:
            handler.eof_received()

    def close_when_idle(self) -> None:
        """Close now if no call is under way, else once it is answered."""
        self._closing = True
        if self._busy is None and self._pending is None and self._transport is not None:
            self._transport.close()

    def _body_late(self) -> None:
        """A body that did not arrive within ``read_timeout``: 408 in SQS's format, as aiohttp's
        handler answers it, and the connection closes (the rest is not read)."""
        pending = self._pending  # (cancelled when the connection closed or was handed over)
        assert pending is not None
        self._drop_pending()
        http = pending[1]
        served = self._lane.served
        self._buffer.clear()
        self._answer(http, refused(served, http, timed_out(served)), True)
        self._lane.call_ended()

    # -- idle connections -------------------------------------------------------------------

    def _cancel_timers(self) -> None:
        """The connection is closed or handed over: no idle timer, and no body awaited (nor
        counted as a request under way)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._drop_pending():
            self._lane.call_ended()

    def _drop_pending(self) -> bool:
        """Stop waiting for a request's body: True if one was awaited."""
        late = self._late
        if late is None:
            return False
        late.cancel()
        self._pending = self._late = None
        return True

    def _arm(self) -> None:
        timeout = self._lane.idle_timeout
        if timeout > 0:
            self._timer = self._loop.call_at(self._last + timeout, self._idle)

    def _idle(self) -> None:
        self._timer = None
        transport = self._transport
        if transport is None:
            return
        timeout, now = self._lane.idle_timeout, self._loop.time()
        if self._busy is not None or self._pending is not None:
            # Not idle: a call is awaited, or a body arrives (read_timeout bounds it). Look
            # again a timeout from now.
            self._timer = self._loop.call_at(now + timeout, self._idle)
        elif now >= self._last + timeout:
            transport.close()
        else:
            self._arm()
