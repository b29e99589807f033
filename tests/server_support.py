"""Helpers for the server tests: plain HTTP calls in both wire protocols, raw sockets, boto3."""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.parse
import xml.etree.ElementTree as ET
from typing import Any

import boto3
from botocore.config import Config

REGION = "us-east-1"
ACCOUNT = "123456789012"
NS = "{http://queue.amazonaws.com/doc/2012-11-05/}"


def client(endpoint: str, region: str = REGION, key: str = "testing", **config: Any) -> Any:
    """A boto3 SQS client for the server, with no retries (an error shows at once)."""
    return boto3.client(
        "sqs",
        endpoint_url=endpoint,
        region_name=region,
        aws_access_key_id=key,
        aws_secret_access_key="secret",
        config=Config(retries={"max_attempts": 1, "mode": "standard"}, **config),
    )


class Answer:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)

    def xml(self) -> ET.Element:
        return ET.fromstring(self.body)

    def find(self, path: str) -> str | None:
        """Text of the first element at ``path`` (names without the SQS namespace)."""
        element = self.xml().find(".//" + "/".join(NS + part for part in path.split("/")))
        return None if element is None else element.text

    @property
    def error_code(self) -> str | None:
        if self.headers.get("content-type", "").startswith("application/x-amz-json"):
            header = self.headers.get("x-amzn-query-error")
            return header.split(";")[0] if header else None
        return self.find("Error/Code")


def request(
    endpoint: str,
    method: str,
    path: str,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
) -> Answer:
    parts = urllib.parse.urlsplit(endpoint)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        connection.request(method, path, body, headers or {})
        response = connection.getresponse()
        data = response.read()
        found = {key.lower(): value for key, value in response.getheaders()}
        return Answer(response.status, found, data)
    finally:
        connection.close()


def call_json(
    endpoint: str, operation: str, params: Any, headers: dict[str, str] | None = None
) -> Answer:
    body = params if isinstance(params, bytes) else json.dumps(params).encode()
    sent = {
        "X-Amz-Target": f"AmazonSQS.{operation}",
        "Content-Type": "application/x-amz-json-1.0",
        **(headers or {}),
    }
    return request(endpoint, "POST", "/", body, sent)


def call_query(
    endpoint: str,
    form: list[tuple[str, str]] | bytes,
    path: str = "/",
    headers: dict[str, str] | None = None,
) -> Answer:
    body = form if isinstance(form, bytes) else urllib.parse.urlencode(form).encode()
    sent = {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})}
    return request(endpoint, "POST", path, body, sent)


def admin(endpoint: str, method: str, route: str, body: Any = None) -> Answer:
    """An admin request; those that may change state are JSON, as the server requires."""
    data = b"" if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {} if method in ("GET", "HEAD") else {"Content-Type": "application/json"}
    return request(endpoint, method, f"/_sqsmock/{route}", data, headers)


def raw_exchange(
    host: str, port: int, data: bytes, *, timeout: float = 10.0, shut: bool = False
) -> bytes:
    """Send ``data`` on a new connection and read until the server closes it (or time-out)."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(data)
        if shut:
            sock.shutdown(socket.SHUT_WR)
        return read_all(sock, timeout)


def read_all(sock: socket.socket, timeout: float) -> bytes:
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            break
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def status_of(raw: bytes) -> int:
    """The status of the first HTTP answer in ``raw``."""
    line = raw.split(b"\r\n", 1)[0]
    assert line.startswith((b"HTTP/1.1 ", b"HTTP/1.0 ")), raw[:200]
    return int(line.split()[1])


def body_of(raw: bytes) -> bytes:
    return raw.split(b"\r\n\r\n", 1)[1]


def wait_until(condition: Any, timeout: float = 10.0) -> None:
    """Ask the server about its state (not SQS time) until ``condition`` holds: each check is an
    admin request, which paces the loop; nothing sleeps."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")


def waiting_polls(endpoint: str) -> int:
    return sum(queue["long_polls_waiting"] for queue in admin(endpoint, "GET", "queues").json())


class AnswerReader:
    """HTTP answers with a Content-Length body, one after another, from a kept-alive socket."""

    def __init__(self, sock: socket.socket, timeout: float = 10.0) -> None:
        self.sock = sock
        self.buffer = b""
        sock.settimeout(timeout)

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        assert chunk, f"connection closed; read {self.buffer[:200]!r}"
        self.buffer += chunk

    def answer(self) -> bytes:
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        while len(rest) < length:
            self._fill()
            head, _, rest = self.buffer.partition(b"\r\n\r\n")
        self.buffer = rest[length:]
        return head + b"\r\n\r\n" + rest[:length]
