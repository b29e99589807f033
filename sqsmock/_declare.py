"""Queues declared ahead of time: a TOML file (or a dict of the same shape) read by
``mock_sqs(config=...)``, ``serve(config=...)``, ``sqsmock serve --config`` and the pytest ini
option ``sqsmock_config``.

    [defaults]                     # optional: region, account
    region = "us-east-1"
    [queues."orders.fifo"]
    region = "eu-west-1"           # optional per queue
    attributes = { VisibilityTimeout = 45, RedrivePolicy = {
                   deadLetterTargetArn = "orders-dlq.fifo", maxReceiveCount = 5 } }
    tags = { team = "payments" }
    [queues."orders-dlq.fifo"]

A declaration is applied the way a program would make the same queues: through the SQS actions
themselves (CreateQueue, SetQueueAttributes, TagQueue), so a file is held to exactly the rules of
the API. It is applied twice: first to a scratch, in-memory backend (every error is found there,
before anything is created for real: an error names the file, the queue and the attribute), then
to the activation's own backend. Queues are created first and their redrive policies set after,
so the order of the file does not matter. A queue that already exists (a persisted store, a
reset that kept nothing, a second start) has its declared attributes and tags applied to it;
its messages stay.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import _protocol
from ._engine import Backend, make_clock
from ._protocol import Call
from ._regions import check_region

__all__ = ["ConfigError", "Declarations", "QueueDeclaration", "apply", "check_place", "load"]

#: The attributes whose TOML value may be a table (a JSON document in the API).
_DOCUMENTS = frozenset({"RedrivePolicy", "RedriveAllowPolicy", "Policy"})
#: Set once every queue exists: they name other queues.
_LATE = ("RedrivePolicy", "RedriveAllowPolicy")
_QUEUE_KEYS = frozenset({"region", "account", "attributes", "tags"})
_DEFAULT_KEYS = frozenset({"region", "account"})
#: How deep a policy table may nest (SQS's policies are a few levels deep).
_DOCUMENT_DEPTH = 32


class ConfigError(ValueError):
    """A declaration file or dict that sqsmock cannot apply; nothing of it was created."""


@dataclass(frozen=True)
class QueueDeclaration:
    """One declared queue: its name, where it lives (None: the activation's default), and its
    attributes (API names, values as TOML gave them) and tags."""

    name: str
    region: str | None = None
    account: str | None = None
    attributes: Mapping[str, Any] = field(default_factory=dict)
    tags: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Declarations:
    """What a config file declares: queues, defaults, and (ElasticMQ's files) server settings."""

    source: str
    queues: tuple[QueueDeclaration, ...] = ()
    region: str | None = None
    account: str | None = None
    #: Server settings a file may carry (``host``, ``port``): the command line wins over them.
    server: Mapping[str, Any] = field(default_factory=dict)
    #: Settings read but not supported, each named once (ElasticMQ's files).
    warnings: tuple[str, ...] = ()
    #: Read from ElasticMQ's configuration: its queues are held to ElasticMQ's rules (a FIFO
    #: queue's name need not end in ``.fifo``, its dead-letter queue may be standard), and they
    #: live in the activation's own region and account (ElasticMQ has one namespace).
    elasticmq: bool = False

    def check(self, region: str, account: str) -> None:
        """Raise ConfigError if these queues cannot be made in an empty mock."""
        if not self.queues:
            return
        scratch = Backend(make_clock("frozen"), region, account)
        try:
            _Applier(self, scratch, region, account).run(check_existing=False)
        finally:
            scratch.close()


def load(config: str | os.PathLike[str] | Mapping[str, Any] | Declarations) -> Declarations:
    """The declarations of a TOML file or a dict (``_config.load`` reads ElasticMQ's files)."""
    if isinstance(config, Declarations):
        return config
    if isinstance(config, Mapping):
        return _from_dict(config, "config")
    if not isinstance(config, (str, os.PathLike)):
        raise TypeError(f"config must be a file path or a dict, not {config!r}")
    path = os.fspath(config)
    try:
        with open(path, "rb") as file:
            data = _toml().load(file)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except OSError as error:
        raise ConfigError(f"{path}: {error.strerror or error}") from None
    except ValueError as error:  # tomllib.TOMLDecodeError
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except RecursionError:  # tomllib reads nested arrays and tables recursively
        raise ConfigError(f"{path}: not valid TOML: arrays or tables nested too deeply") from None
    return _from_dict(data, path)


def _toml() -> Any:
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    import tomli  # type: ignore[import-not-found]  # pragma: no cover - Python 3.10

    return tomli  # pragma: no cover


def _from_dict(data: Mapping[str, Any], source: str) -> Declarations:
    def fail(message: str) -> ConfigError:
        return ConfigError(f"{source}: {message}")

    unknown = sorted(set(data) - {"defaults", "queues"}, key=str)
    if unknown:
        raise fail(f"unknown section {unknown[0]!r} (sections: defaults, queues)")
    defaults = data.get("defaults", {})
    if not isinstance(defaults, Mapping):
        raise fail("[defaults] must be a table")
    unknown = sorted(set(defaults) - _DEFAULT_KEYS, key=str)
    if unknown:
        raise fail(f"[defaults]: unknown key {unknown[0]!r} (keys: region, account)")
    region = _where(defaults, "region", "[defaults]", fail)
    account = _where(defaults, "account", "[defaults]", fail)
    queues = data.get("queues", {})
    if not isinstance(queues, Mapping):
        raise fail("[queues] must be a table of queues")
    declared = []
    for name, spec in queues.items():
        where = f"queue {name!r}"
        spec = {} if spec is None else spec
        if not isinstance(spec, Mapping):
            raise fail(f"{where}: must be a table")
        unknown = sorted(set(spec) - _QUEUE_KEYS, key=str)
        if unknown:
            raise fail(
                f"{where}: unknown key {unknown[0]!r} (keys: region, account, attributes, tags)"
            )
        attributes = spec.get("attributes", {})
        if not isinstance(attributes, Mapping):
            raise fail(f"{where}: attributes must be a table")
        for key in attributes:
            if not isinstance(key, str):
                raise fail(f"{where}: attribute names must be strings, not {key!r}")
        tags = spec.get("tags", {})
        if not isinstance(tags, Mapping):
            raise fail(f"{where}: tags must be a table")
        for key, value in tags.items():
            if not isinstance(key, str):
                raise fail(f"{where}: tag keys must be strings, not {key!r}")
            if not isinstance(value, str):
                raise fail(f"{where}: tag {key!r} must be a string, not {value!r}")
        declared.append(
            QueueDeclaration(
                name=str(name),
                region=_where(spec, "region", where, fail),
                account=_where(spec, "account", where, fail),
                attributes=dict(attributes),
                tags=dict(tags),
            )
        )
    return Declarations(source=source, queues=tuple(declared), region=region, account=account)


def _where(
    table: Mapping[str, Any], key: str, where: str, fail: Callable[[str], ConfigError]
) -> str | None:
    return check_place(key, table.get(key), where, fail)


def check_place(
    key: str, value: Any, where: str, fail: Callable[[str], ConfigError], named: str = ""
) -> str | None:
    """A region (``key`` "region") or an account ("account": 12 digits, or a number) as a
    string, checked; None for None. ``named``: the setting's name in the file, if not ``key``."""
    if value is None:
        return None
    named = named or key
    if key == "account" and isinstance(value, int) and not isinstance(value, bool):
        value = f"{value:012d}"
    if not isinstance(value, str):
        raise fail(f"{where}: {named} must be a string, not {value!r}")
    if key == "region":
        try:
            check_region(value)
        except ValueError as error:
            raise fail(f"{where}: {error}") from None
    elif not (len(value) == 12 and value.isascii() and value.isdigit()):
        raise fail(f"{where}: {named} must be 12 digits, not {value!r}")
    return value


# -- applying -------------------------------------------------------------------------------


def apply(declarations: Declarations, backend: Backend, region: str, account: str) -> None:
    """Make ``backend`` hold the declared queues (checking everything on a scratch backend
    first, so an error leaves ``backend`` as it was); ConfigError names what is wrong."""
    if not declarations.queues:
        return
    declarations.check(region, account)
    _Applier(declarations, backend, region, account).run(check_existing=True)


class _Applier:
    def __init__(self, declarations: Declarations, backend: Backend, region: str, account: str):
        self.declarations = declarations
        self.backend = backend
        # ElasticMQ's queues live where every caller of ElasticMQ mode is taken to be.
        lenient = self.lenient = declarations.elasticmq
        self.region = region if lenient else declarations.region or region
        self.account = account if lenient else declarations.account or account
        #: Where each declared name lives, to turn a name in a redrive policy into an ARN.
        self.places = {q.name: self._place(q) for q in declarations.queues}

    def _place(self, queue: QueueDeclaration) -> tuple[str, str]:
        return queue.region or self.region, queue.account or self.account

    def fail(self, queue: QueueDeclaration, message: str, attribute: str | None = None) -> None:
        where = f"queue {queue.name!r}"
        if attribute is not None:
            where += f", attribute {attribute!r}"
        raise ConfigError(f"{self.declarations.source}: {where}: {message}")

    def _caller(self, queue: QueueDeclaration) -> Call:
        region, account = self._place(queue)
        return Call(region, account, elasticmq_conf=self.lenient)

    def call(
        self, queue: QueueDeclaration, operation: str, params: dict[str, Any], attr: str | None
    ) -> dict[str, Any]:
        result = _protocol.call(self.backend, operation, params, self._caller(queue))
        if result.error is not None:
            self.fail(queue, f"{result.error.code}: {result.error.message}", attr)
        return dict(result.payload or {})

    def run(self, *, check_existing: bool) -> None:
        plans = [(q, self._attributes(q)) for q in self.declarations.queues]
        existing = {}
        for queue, (early, _) in plans:
            found = self._existing_url(queue)
            if found is not None:
                if check_existing:
                    self._check_type(queue, found, early)
                existing[queue.name] = found
        for queue, (early, _) in plans:
            url = existing.get(queue.name)
            if url is None:
                params: dict[str, Any] = {"QueueName": queue.name, "Attributes": early}
                if queue.tags:
                    params["tags"] = dict(queue.tags)
                self._one_by_one(queue, "CreateQueue", params, early)
            else:
                settable = {k: v for k, v in early.items() if k != "FifoQueue"}
                if settable:
                    self._one_by_one(
                        queue,
                        "SetQueueAttributes",
                        {"QueueUrl": url, "Attributes": settable},
                        settable,
                    )
                if queue.tags:
                    self.call(queue, "TagQueue", {"QueueUrl": url, "Tags": dict(queue.tags)}, None)
        for queue, (_, late) in plans:
            for name, value in late.items():
                url = existing.get(queue.name) or self._existing_url(queue)
                params = {"QueueUrl": url, "Attributes": {name: value}}
                self.call(queue, "SetQueueAttributes", params, name)

    def _one_by_one(
        self, queue: QueueDeclaration, operation: str, params: dict[str, Any], attrs: dict[str, str]
    ) -> None:
        """Run the call; when it fails, find the attribute to blame by trying each alone."""
        result = _protocol.call(self.backend, operation, params, self._caller(queue))
        if result.error is None:
            return
        blamed = None
        if operation == "CreateQueue" and result.error.code not in ("QueueAlreadyExists",):
            blamed = self._blame(queue, attrs)
        self.fail(queue, f"{result.error.code}: {result.error.message}", blamed)

    def _blame(self, queue: QueueDeclaration, attrs: dict[str, str]) -> str | None:
        """The first attribute that a fresh scratch queue of the same name refuses alone; none
        when the name itself is refused (a FIFO queue's without ``.fifo``, say)."""
        fifo = {"FifoQueue": "true"} if attrs.get("FifoQueue") == "true" else {}
        if self._refused(queue, fifo):
            return "FifoQueue" if fifo and not self._refused(queue, {}) else None
        for name, value in attrs.items():
            if self._refused(queue, {**fifo, name: value}):
                return name
        return None

    def _refused(self, queue: QueueDeclaration, attributes: dict[str, str]) -> bool:
        """Does a fresh scratch backend refuse this queue with just these attributes?"""
        region, account = self._place(queue)
        probe = Backend(make_clock("frozen"), region, account)
        try:
            params = {"QueueName": queue.name, "Attributes": attributes}
            result = _protocol.call(probe, "CreateQueue", params, self._caller(queue))
        finally:
            probe.close()
        return result.error is not None

    def _existing_url(self, queue: QueueDeclaration) -> str | None:
        account = self._place(queue)[1]
        params = {"QueueName": queue.name, "QueueOwnerAWSAccountId": account}
        result = _protocol.call(self.backend, "GetQueueUrl", params, self._caller(queue))
        if result.error is not None or result.payload is None:
            return None
        return str(result.payload["QueueUrl"])

    def _check_type(self, queue: QueueDeclaration, url: str, early: dict[str, str]) -> None:
        """A queue cannot change between standard and FIFO: say so before changing anything."""
        got = self.call(
            queue, "GetQueueAttributes", {"QueueUrl": url, "AttributeNames": ["All"]}, None
        )
        is_fifo = got.get("Attributes", {}).get("FifoQueue") == "true"
        if is_fifo != (early.get("FifoQueue") == "true"):
            kind = "FIFO" if is_fifo else "standard"
            self.fail(queue, f"the existing queue is a {kind} queue; a queue cannot change type")

    def _attributes(self, queue: QueueDeclaration) -> tuple[dict[str, str], dict[str, str]]:
        """The queue's attributes as API strings: those for CreateQueue, and those set later."""
        early: dict[str, str] = {}
        late: dict[str, str] = {}
        if queue.name.endswith(".fifo") and "FifoQueue" not in queue.attributes:
            early["FifoQueue"] = "true"
        for name, value in queue.attributes.items():
            text = self._text(queue, name, value)
            (late if name in _LATE else early)[name] = text
        return early, late

    def _text(self, queue: QueueDeclaration, name: str, value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float, str)):
            return str(value)
        if isinstance(value, Mapping) and name in _DOCUMENTS:
            problem = _not_json(value, _DOCUMENT_DEPTH)
            if problem is not None:
                self.fail(queue, problem, name)
            document = dict(value)
            if name == "RedrivePolicy" and isinstance(document.get("deadLetterTargetArn"), str):
                document["deadLetterTargetArn"] = self._arn(document["deadLetterTargetArn"])
            if name == "RedriveAllowPolicy" and isinstance(document.get("sourceQueueArns"), list):
                document["sourceQueueArns"] = [
                    self._arn(v) if isinstance(v, str) else v for v in document["sourceQueueArns"]
                ]
            return json.dumps(document, separators=(",", ":"))
        kinds = "a number, a boolean or a string" + (" or a table" if name in _DOCUMENTS else "")
        self.fail(queue, f"the value must be {kinds}, not {value!r}", name)
        raise AssertionError  # pragma: no cover - fail() raises

    def _arn(self, reference: str) -> str:
        """A queue reference in a policy: an ARN as it is, a declared queue's name as its ARN."""
        if reference.startswith("arn:"):
            return reference
        region, account = self.places.get(reference, (self.region, self.account))
        return f"arn:aws:sqs:{region}:{account}:{reference}"


def _not_json(value: Any, depth: int) -> str | None:
    """What keeps a policy table from being a JSON document, if anything: TOML's dates and
    times, inf and nan, or nesting deeper than any policy needs."""
    if isinstance(value, (str, int)) or value is None:  # bool is an int
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{value!r} is not a number JSON can hold"
    if hasattr(value, "isoformat"):  # TOML's dates and times
        return f"the date or time {value.isoformat()} must be written as a string in a policy"
    if not isinstance(value, (Mapping, list, tuple)):
        return f"{value!r} has no JSON form"
    if depth <= 0:
        return "tables or arrays nested too deeply for a policy"
    if isinstance(value, Mapping) and not all(isinstance(key, str) for key in value):
        return f"keys must be strings, not {sorted(value, key=str)!r}"
    items = value.values() if isinstance(value, Mapping) else value
    return next((found for v in items if (found := _not_json(v, depth - 1))), None)
