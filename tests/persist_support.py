"""Helpers for the persistence tests: Redis stores, a counting/failing client, a private server."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

REAL_HOST = "127.0.0.1"
REAL_PORT = 6379
REGION = "us-east-1"
ACCOUNT = "123456789012"


def qid(name: str, region: str = REGION, account: str = ACCOUNT) -> str:
    """The id sqsmock stores a queue under (``region/account/name``)."""
    return f"{region}/{account}/{name}"


def text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def redis_client(host: str, port: int, db: int = 0) -> redis.Redis:
    """A redis-py client that fails fast (no retries, short timeouts)."""
    return redis.Redis(
        host=host,
        port=port,
        db=db,
        socket_timeout=2,
        socket_connect_timeout=2,
        retry=Retry(NoBackoff(), 0),
    )


def real_redis_problem(client: redis.Redis) -> str | None:
    """Why the real Redis server cannot be used, or None when it answers."""
    try:
        client.ping()
    except redis.exceptions.RedisError as error:
        return f"{type(error).__name__}: {error}"
    return None


@dataclass
class Store:
    """One Redis database (fakeredis or a real server) and the namespace a test uses in it."""

    kind: str
    client: Any
    namespace: str
    new_client: Callable[[], Any] = field(repr=False)

    def key_names(self, namespace: str | None = None) -> set[str]:
        prefix = self.namespace if namespace is None else namespace
        return {text(k) for k in self.client.scan_iter(match=prefix + "*", count=1000)}

    def hash(self, suffix: str) -> dict[str, str]:
        raw = self.client.hgetall(self.namespace + suffix)
        return {text(k): text(v) for k, v in raw.items()}

    def queue_hash(self, name: str) -> dict[str, str]:
        """The queue's hash: ``m:<MessageId>``, ``d:<dedup key>`` and ``seq`` fields."""
        return self.hash(f"q:{qid(name)}")

    def messages(self, name: str) -> dict[str, str]:
        """Message records by MessageId."""
        return {k[2:]: v for k, v in self.queue_hash(name).items() if k.startswith("m:")}

    def states(self, name: str) -> dict[str, list[Any]]:
        """Delivery states (the record's ``state`` list) by MessageId."""
        return {k: json.loads(v)["state"] for k, v in self.messages(name).items()}

    def dedup(self, name: str) -> dict[str, list[Any]]:
        return {
            k[2:]: json.loads(v) for k, v in self.queue_hash(name).items() if k.startswith("d:")
        }

    def sequence(self, name: str) -> int | None:
        value = self.queue_hash(name).get("seq")
        return None if value is None else int(value)

    def meta(self, name: str) -> dict[str, Any] | None:
        raw = self.hash("queues").get(qid(name))
        return None if raw is None else json.loads(raw)

    def drop(self, namespace: str | None = None) -> None:
        keys = list(self.key_names(namespace))
        if keys:
            self.client.delete(*keys)


class InjectedFailure(redis.exceptions.ConnectionError):
    """The error the proxy raises in place of a transaction."""


class FaultyRedis:
    """A redis-py client proxy that counts ``pipeline().execute()`` and can make Redis fail.

    ``fail = True`` fails every execute and every direct command; ``fail_at = n`` fails only the
    n-th execute from now (1-based). ``atomic`` records, per execute, whether it was atomic:
    a MULTI/EXEC transaction or a single command.
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.executes = 0
        self.atomic: list[bool] = []
        self.fail = False
        self.fail_at: int | None = None
        #: The next execute runs, then raises as if its reply was lost (the connection broke).
        self.lose_reply = False
        #: Fail direct commands (not pipelines): Redis cannot be asked what became of a write.
        self.fail_commands = False
        self._seen_since_arm = 0

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if not callable(value):
            return value

        def command(*args: Any, **kwargs: Any) -> Any:
            if self.fail or self.fail_commands:
                raise InjectedFailure("Connection lost (injected by the test)")
            return value(*args, **kwargs)

        return command

    def pipeline(self, *args: Any, **kwargs: Any) -> _FaultyPipeline:
        transaction = bool(kwargs.get("transaction", args[0] if args else True))
        return _FaultyPipeline(self, self._inner.pipeline(*args, **kwargs), transaction)

    def arm(self, nth: int) -> None:
        self.fail_at = nth
        self._seen_since_arm = 0

    def _should_fail(self) -> bool:
        if self.fail:
            return True
        if self.fail_at is None:
            return False
        self._seen_since_arm += 1
        if self._seen_since_arm == self.fail_at:
            self.fail_at = None
            return True
        return False


class _FaultyPipeline:
    def __init__(self, owner: FaultyRedis, inner: Any, transaction: bool) -> None:
        self._owner = owner
        self._inner = inner
        self._transaction = transaction

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def __enter__(self) -> _FaultyPipeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self._inner.reset()

    def execute(self, *args: Any, **kwargs: Any) -> Any:
        self._owner.executes += 1
        commands = len(getattr(self._inner, "command_stack", ()))
        self._owner.atomic.append(self._transaction or commands == 1)
        if self._owner._should_fail():
            self._inner.reset()
            raise InjectedFailure("Connection lost (injected by the test)")
        result = self._inner.execute(*args, **kwargs)
        if self._owner.lose_reply:
            self._owner.lose_reply = False
            raise InjectedFailure("Connection lost (injected by the test)")
        return result


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivateRedis:
    """A redis-server of our own, keeping its data in an append-only file under ``directory``."""

    def __init__(
        self, directory: Path, append_only: bool = True, options: tuple[str, ...] = ()
    ) -> None:
        self.directory = directory
        #: More ``redis-server`` arguments (``--maxmemory-policy allkeys-lru`` ...).
        self.options = options
        #: False: ``--appendonly no`` (nothing on disk; the server only has to outlive a pause).
        self.append_only = append_only
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self._drain: threading.Thread | None = None

    def start(self, timeout: float = 10.0) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes" if self.append_only else "no",
                "--appendfsync",
                "always",
                "--dir",
                str(self.directory),
                "--daemonize",
                "no",
                *self.options,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        self._wait_ready(timeout)

    def _wait_ready(self, timeout: float) -> None:
        """Read the server's log until it accepts connections (no sleeping)."""
        assert self.proc is not None and self.proc.stdout is not None
        out = self.proc.stdout
        deadline = time.monotonic() + timeout
        log = b""
        while b"Ready to accept connections" not in log:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                self.kill()
                raise RuntimeError(f"redis-server did not start: {log.decode(errors='replace')}")
            readable, _, _ = select.select([out], [], [], left)
            if readable:
                log += os.read(out.fileno(), 65536)  # unbuffered: select sees what is left
        self._drain = threading.Thread(target=_drain, args=(out.fileno(),), daemon=True)
        self._drain.start()
        if real_redis_problem(self.client()) is not None:  # pragma: no cover - defensive
            self.kill()
            raise RuntimeError("redis-server said it was ready but does not answer")

    def client(self) -> redis.Redis:
        return redis_client("127.0.0.1", self.port)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def pause(self) -> None:
        """SIGSTOP: the server keeps its connections but answers nothing until ``resume()``.

        Returns once the server has stopped, every thread of it: the kernel reports that to
        us, its parent (``waitpid`` with WUNTRACED blocks until then). The stop itself takes
        effect after ``kill()`` returns -- right then the server is often still running
        (state R in ``/proc``), the more so on a loaded machine.
        """
        proc = self.proc
        assert proc is not None and proc.poll() is None
        proc.send_signal(signal.SIGSTOP)
        _, status = os.waitpid(proc.pid, os.WUNTRACED)
        if not os.WIFSTOPPED(status):  # it ended instead: Popen must not wait for it again
            proc.returncode = os.waitstatus_to_exitcode(status)
            raise RuntimeError(f"redis-server ended instead of pausing ({proc.returncode})")

    def resume(self) -> None:
        """SIGCONT; returns once the server answers again -- a PING on a connection of its own,
        which the server reads after everything that reached it while it was paused."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            answering = redis_client("127.0.0.1", self.port)
            try:
                answering.ping()
            finally:
                answering.close()

    def send_only(self, *command: str) -> socket.socket:
        """Send ``command`` on a connection of its own and return that socket without reading
        the reply (``reply()`` reads it): while the server is paused the command waits in its
        socket and runs as soon as it is resumed."""
        parts = [f"*{len(command)}\r\n".encode()]
        for arg in command:
            data = arg.encode()
            parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        sock.sendall(b"".join(parts))
        return sock

    def stop(self) -> None:
        """Terminate the server (SIGTERM) and wait for it."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        self._end(signal.SIGKILL)

    def _end(self, sig: int) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGCONT)  # a paused server would not act on SIGTERM
            proc.send_signal(sig)
            proc.wait(timeout=10)
        if self._drain is not None:  # it ends at end of file, now that the server is gone
            self._drain.join(timeout=10)
            self._drain = None
        if proc.stdout is not None:
            proc.stdout.close()


def reply(sock: socket.socket) -> bytes:
    """The one-line reply to the command ``send_only`` sent on ``sock`` (which is closed)."""
    with sock:
        got = b""
        while not got.endswith(b"\r\n"):
            chunk = sock.recv(512)  # blocks (10 s at most) until the server answers
            if not chunk:
                raise ConnectionError(f"redis-server closed the connection after {got!r}")
            got += chunk
        return got


def _drain(fd: int) -> None:
    """Keep reading the server's log so that it never blocks on a full pipe."""
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        pass


@contextlib.contextmanager
def real_namespace(client: redis.Redis, namespace: str) -> Iterator[tuple[redis.Redis, str]]:
    """``client`` of the real Redis server with ``namespace`` in it, its keys deleted afterwards;
    the test fails (never skips) when that server does not answer."""
    problem = real_redis_problem(client)
    if problem is not None:
        pytest.fail(f"the Redis server at {REAL_HOST}:{REAL_PORT} is not reachable ({problem})")
    try:
        yield client, namespace
    finally:
        keys = list(client.scan_iter(match=namespace + "*"))
        if keys:
            client.delete(*keys)


class SlowProxy:
    """A TCP proxy in front of a Redis server that holds every reply back ``delay`` seconds:
    a Redis that answers, but slowly (a loaded machine, a far network). ``delay`` may change
    at any time; ``close()`` stops it."""

    def __init__(self, port: int, delay: float = 0.0) -> None:
        self.target = port
        self.delay = delay
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._sockets: list[socket.socket] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self._sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, True), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, replies: bool) -> None:
        try:
            while data := source.recv(65536):
                if replies and self.delay > 0:
                    time.sleep(self.delay)  # the latency this proxy stands for
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        self._closed = True
        self._listener.close()
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.close()
