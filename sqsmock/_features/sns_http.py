"""SNS's HTTP deliveries to http/https subscribers on this machine, sent off the caller's thread.

The service layer builds each request (a subscription confirmation, a notification) and hands
it to the sender the runtime injects; this module sends it. Publish never waits for a
subscriber: requests go into a queue drained by one background thread, in the order they were
handed over (a confirmation before the notifications that follow it), each with a bounded
timeout. The thread ends when it has had nothing to send for a while and starts again with the
next request.

Only loopback endpoints are contacted (``localhost``, ``*.localhost``, 127.0.0.0/8, ``::1``):
a test's subscriber runs on the test's machine, and sqsmock must never post a test's messages to
a real host. Any other endpoint's request is not sent and counts as failed. Proxies from the
environment are not used (a loopback request must not leave the machine). ``https`` is sent
with TLS without checking the certificate (a test's server has a self-signed one).
"""

from __future__ import annotations

import http.client
import ipaddress
import logging
import queue
import ssl
import threading
from urllib.parse import urlsplit

from .._engine.outbox import Outgoing

__all__ = ["TIMEOUT", "is_loopback", "send_over_loopback"]

log = logging.getLogger("sqsmock")

#: Seconds a subscriber has to answer one request (AWS's default is 15; a test wants less).
TIMEOUT = 5.0
#: Seconds the sending thread waits for more work before it ends.
_IDLE = 2.0

_tls = ssl.create_default_context()
_tls.check_hostname = False
_tls.verify_mode = ssl.CERT_NONE


def is_loopback(url: str) -> bool:
    """Whether ``url`` is http(s) to this machine, by its host name alone (nothing resolved)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return False
    if parts.scheme not in ("http", "https"):
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _post(outgoing: Outgoing) -> bool:
    """POST ``outgoing`` (its header names as given: SNS's are lower case); True on a 2xx."""
    if not is_loopback(outgoing.url):
        log.info("SNS delivery to %s not sent: sqsmock posts only to loopback", outgoing.url)
        return False
    parts = urlsplit(outgoing.url)
    connection: http.client.HTTPConnection
    try:
        if parts.scheme == "https":
            connection = http.client.HTTPSConnection(
                parts.hostname or "", parts.port, timeout=TIMEOUT, context=_tls
            )
        else:
            connection = http.client.HTTPConnection(
                parts.hostname or "", parts.port, timeout=TIMEOUT
            )
        try:
            target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            connection.request("POST", target, body=outgoing.body, headers=outgoing.headers)
            answer = connection.getresponse()
            answer.read()
            return 200 <= answer.status < 300
        finally:
            connection.close()
    except (OSError, ValueError, http.client.HTTPException) as error:
        log.info("SNS delivery to %s failed: %s", outgoing.url, error)
        return False


class _Worker:
    """One background thread sending queued requests in order; it ends when idle."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Outgoing] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def send(self, outgoing: Outgoing) -> None:
        self._queue.put(outgoing)
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="sqsmock-sns-http", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                outgoing = self._queue.get(timeout=_IDLE)
            except queue.Empty:
                with self._lock:
                    if self._queue.empty():
                        self._thread = None
                        return
                continue
            taken = _post(outgoing)
            if outgoing.done is not None:
                try:
                    outgoing.done(taken)
                except Exception:  # a report must not end the sender
                    log.exception("SNS delivery report failed")


_worker = _Worker()


def send_over_loopback(outgoing: Outgoing) -> None:
    """The runtime's sender: queue ``outgoing`` for the background thread; return at once."""
    _worker.send(outgoing)
