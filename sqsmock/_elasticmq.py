"""ElasticMQ's ``elasticmq.conf`` as a queue declaration file, so its users can switch unchanged.

Read with pyhocon (``pip install 'sqsmock[elasticmq]'``). What maps:

- ``queues { name { ... } }``: ``defaultVisibilityTimeout`` → VisibilityTimeout, ``delay`` →
  DelaySeconds, ``receiveMessageWait`` → ReceiveMessageWaitTimeSeconds (durations such as
  ``10 seconds``), ``deadLettersQueue { name, maxReceiveCount }`` → RedrivePolicy, ``fifo`` →
  FifoQueue, ``contentBasedDeduplication``, ``tags``;
- ``rest-sqs { bind-port, bind-hostname }`` → the server's port and host (flags win);
  ``sqs-limits = relaxed`` → the limits ElasticMQ's relaxed mode lifts that sqsmock lifts too
  (docs/coming-from-elasticmq.md);
- ``node-address { protocol, host, port, context-path }`` → the base of every queue URL, as
  ElasticMQ builds them (``host = "*"`` or ``generate-node-address = true``: the request's);
- ``aws { region, accountId }`` → the default region and account (a region AWS does not have,
  such as ElasticMQ's own ``elasticmq``, names no place: ElasticMQ has no regions).

A file read here switches on ElasticMQ mode (``Declarations.elasticmq``): its queues are held to
ElasticMQ's rules rather than the API's (a ``fifo = true`` queue keeps the name the file gives
it, ``.fifo`` or not, and may have a standard dead-letter queue), and the server answers as
ElasticMQ does.

Anything else is named in a warning (``Declarations.warnings``), never dropped silently.
ElasticMQ's own defaults file (``include classpath("application.conf")``) is what sqsmock does
anyway, so that include is skipped. Other includes are read as ElasticMQ (Typesafe config) reads
them: a relative name next to the including file, never in the working directory; a missing
``include "x.conf"`` is skipped (HOCON's includes are optional; sqsmock names it in a warning),
a missing ``include required("x.conf")`` is an error.
"""

from __future__ import annotations

import difflib
import logging
import math
import os
import re
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from ._declare import ConfigError, Declarations, QueueDeclaration, check_place
from ._regions import is_region

__all__ = ["load_elasticmq"]

log = logging.getLogger("sqsmock")

_ACCOUNT = re.compile(r"[0-9]{12}")
_CLASSPATH_INCLUDE = re.compile(r"^\s*include\s+classpath\(\s*\"[^\"]*\"\s*\)\s*$", re.MULTILINE)
_DURATIONS = {
    "defaultVisibilityTimeout": "VisibilityTimeout",
    "delay": "DelaySeconds",
    "receiveMessageWait": "ReceiveMessageWaitTimeSeconds",
}
_FLAGS = {"fifo": "FifoQueue", "contentBasedDeduplication": "ContentBasedDeduplication"}
#: Top-level settings that sqsmock has no use for, each with why (said in the warning).
_IGNORED = {
    "rest-stats": "sqsmock has no statistics endpoint; see /_sqsmock/queues and /_sqsmock/metrics",
    "queues-storage": "use --persistence redis://... to keep queues",
    "messages-storage": "use --persistence redis://... to keep messages",
    "akka": "sqsmock does not run on Akka",
    "pekko": "sqsmock does not run on Pekko",
}
#: Queue settings ElasticMQ has and sqsmock does not, each with why.
_QUEUE_UNSUPPORTED = {
    "copyTo": "SQS has no such feature",
    "moveTo": "SQS has no such feature",
}
#: Every queue setting ElasticMQ reads, for the hint on a misspelt one.
_QUEUE_KEYS = (*_DURATIONS, *_FLAGS, "deadLettersQueue", "tags", *_QUEUE_UNSUPPORTED)
_UNIT_SECONDS = {
    "ms": 0.001, "milli": 0.001, "millis": 0.001, "millisecond": 0.001, "milliseconds": 0.001,
    "s": 1, "second": 1, "seconds": 1,
    "m": 60, "minute": 60, "minutes": 60,
    "h": 3600, "hour": 3600, "hours": 3600,
    "d": 86400, "day": 86400, "days": 86400,
}  # fmt: skip


def load_elasticmq(path: str) -> Declarations:
    """The queues and settings of an ElasticMQ configuration file."""
    try:
        from pyhocon import ConfigFactory  # type: ignore[import-untyped]
        from pyhocon.exceptions import ConfigException  # type: ignore[import-untyped]
    except ImportError:
        raise ConfigError(
            f"{path}: reading ElasticMQ's configuration needs pyhocon, which is not installed. "
            "Install the 'elasticmq' extra:\n\n    pip install 'sqsmock[elasticmq]'\n"
        ) from None
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: {error}") from None
    folder = os.path.dirname(os.path.abspath(path))  # where its relative includes are
    try:
        with _missing_includes(ConfigFactory) as missing:
            tree = ConfigFactory.parse_string(_CLASSPATH_INCLUDE.sub("", text), basedir=folder)
    except OSError as error:  # include required("...") of a file that cannot be read
        name = error.filename or error
        raise ConfigError(f"{path}: a required include cannot be read: {name}") from None
    except (ConfigException, Exception) as error:  # pyparsing's errors are not pyhocon's
        lines = str(error).splitlines() or [type(error).__name__]
        raise ConfigError(f"{path}: not valid HOCON: {lines[-1]}") from None
    reader = _Reader(path)
    reader.warnings.extend(
        f"include {name}: no such file, skipped (write include required(...) to make it an error)"
        for name in missing
    )
    try:
        declarations = reader.read(tree)
    except _NotATable as error:
        raise ConfigError(f"{path}: {error}") from None
    unsuffixed = [
        q.name
        for q in declarations.queues
        if q.attributes.get("FifoQueue") is True and not q.name.endswith(".fifo")
    ]
    if unsuffixed:
        log.info(
            "%s: FIFO queues named without .fifo, as ElasticMQ allows in its configuration: %s",
            path,
            ", ".join(unsuffixed),
        )
    return declarations


@contextmanager
def _missing_includes(factory: Any) -> Iterator[list[str]]:
    """The files of optional includes that pyhocon skipped (it logs each) in this thread."""
    missing: list[str] = []
    thread = threading.get_ident()

    def skipped(record: logging.LogRecord) -> bool:
        if record.thread == thread and str(record.msg).startswith("Cannot include file"):
            args = record.args
            missing.append(str(args[0]) if isinstance(args, tuple) and args else "?")
            return False  # named in a warning instead
        return True

    logger = logging.getLogger(factory.__module__)
    # A logging.config call elsewhere in the process (disable_existing_loggers) or a raised
    # level would drop pyhocon's record before any filter sees it: listen while parsing.
    disabled, level = logger.disabled, logger.level
    logger.disabled = False
    if not logger.isEnabledFor(logging.WARNING):
        logger.setLevel(logging.WARNING)
    logger.addFilter(skipped)
    try:
        yield missing
    finally:
        logger.removeFilter(skipped)
        logger.disabled = disabled
        if logger.level != level:
            logger.setLevel(level)


class _Reader:
    def __init__(self, path: str) -> None:
        self.path = path
        self.warnings: list[str] = []

    def fail(self, message: str) -> ConfigError:
        return ConfigError(f"{self.path}: {message}")

    def read(self, tree: Mapping[str, Any]) -> Declarations:
        server: dict[str, Any] = {}
        region = account = None
        queues: list[QueueDeclaration] = []
        node_address: str | None = None
        generated = False
        for key, value in tree.items():
            if key == "queues":
                queues = [self.queue(_unquote(n), spec) for n, spec in _table(value).items()]
            elif key == "rest-sqs":
                server.update(self.rest_sqs(_table(value)))
            elif key == "aws":
                region, account = self.aws(_table(value))
            elif key == "node-address":
                node_address = self.node_address(_table(value))
            elif key == "generate-node-address":
                generated = value is True
            elif key == "auto-create-queues" and _table(value).get("enabled") is False:
                pass  # what sqsmock does: a queue that does not exist is an error
            elif key in _IGNORED:
                self.warnings.append(f"{key} is not supported: {_IGNORED[key]}")
            else:
                self.warnings.append(f"{key} is not supported and was ignored")
        if node_address is not None and not generated:
            server["node_address"] = node_address
        return Declarations(
            source=self.path,
            queues=tuple(queues),
            region=region,
            account=account,
            server=server,
            warnings=tuple(self.warnings),
            elasticmq=True,
        )

    def node_address(self, table: Mapping[str, Any]) -> str:
        """``protocol://host:port/context-path``, the base of ElasticMQ's queue URLs (its
        defaults fill in what the block leaves out); for ``host = "*"``, ``*/context-path``:
        the request's scheme, host and port, then the context path."""
        parts = {"protocol": "http", "host": "localhost", "port": 9324, "context-path": ""}
        for key, value in table.items():
            if key not in parts:
                self.warnings.append(f"node-address.{key} is not supported and was ignored")
                continue
            if key == "port":
                if isinstance(value, str) and value.isascii() and value.isdigit():
                    value = int(value)
                if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 65536:
                    raise self.fail(f"node-address.port must be a port number, not {value!r}")
            elif not isinstance(value, str) or any(c.isspace() or c in "?#@" for c in value):
                raise self.fail(f"node-address.{key} must be a string, not {value!r}")
            parts[key] = value
        if parts["protocol"] not in ("http", "https"):
            raise self.fail(f"node-address.protocol must be http or https: {parts['protocol']!r}")
        host = str(parts["host"])
        if not host or "/" in host:
            raise self.fail(f"node-address.host must be a host name, not {host!r}")
        context = str(parts["context-path"]).strip().strip("/")
        path = f"/{context}" if context else ""
        if host == "*":
            return f"*{path}"
        return f"{parts['protocol']}://{host}:{parts['port']}{path}"

    def rest_sqs(self, table: Mapping[str, Any]) -> dict[str, Any]:
        server: dict[str, Any] = {}
        for key, value in table.items():
            if key == "bind-port":
                if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 65536:
                    raise self.fail(f"rest-sqs.bind-port must be a port number, not {value!r}")
                server["port"] = value
            elif key == "bind-hostname":
                if not isinstance(value, str):
                    raise self.fail(f"rest-sqs.bind-hostname must be a string, not {value!r}")
                server["host"] = value
            elif key == "sqs-limits":  # either case, as ElasticMQ reads it
                limits = value.lower() if isinstance(value, str) else value
                if limits not in ("strict", "relaxed"):
                    raise self.fail(f"rest-sqs.sqs-limits must be strict or relaxed, not {value!r}")
                if limits == "relaxed":
                    server["relaxed_limits"] = True
            elif (key, value) == ("enabled", True):
                pass
            else:
                self.warnings.append(f"rest-sqs.{key} is not supported and was ignored")
        return server

    def aws(self, table: Mapping[str, Any]) -> tuple[str | None, str | None]:
        region = account = None
        for key, value in table.items():
            if key == "region" and isinstance(value, str) and not is_region(value):
                pass  # ElasticMQ's own default, "elasticmq", and the like: it has no regions
            elif key == "region":
                region = check_place("region", value, "aws", self.fail)
            elif key == "accountId" and isinstance(value, str) and not _ACCOUNT.fullmatch(value):
                # ElasticMQ takes any letters and digits; sqsmock's accounts are SQS's 12 digits.
                # A queue URL's account names no place in ElasticMQ mode, so clients that put
                # this one in their URLs still reach their queues.
                self.warnings.append(
                    f"aws.accountId = {value!r} is not 12 digits, as SQS's accounts are: queue "
                    "URLs name the default account instead (any account in a URL reaches the "
                    "same queues)"
                )
            elif key == "accountId":
                account = check_place("account", value, "aws", self.fail, "accountId")
            else:
                self.warnings.append(f"aws.{key} is not supported and was ignored")
        return region, account

    def queue(self, name: str, spec: Any) -> QueueDeclaration:
        attributes: dict[str, Any] = {}
        tags: dict[str, str] = {}
        where = f"queue {name!r}"
        for key, value in _table(spec, f"{where} must be a block").items():
            if key in _DURATIONS:
                attributes[_DURATIONS[key]] = self.seconds(value, f"{where}: {key}")
            elif key in _FLAGS:
                if not isinstance(value, bool):
                    raise self.fail(f"{where}: {key} must be true or false, not {value!r}")
                attributes[_FLAGS[key]] = value
            elif key == "deadLettersQueue":
                dead = _table(value, f"{where}: deadLettersQueue must be a block")
                unknown = sorted(set(dead) - {"name", "maxReceiveCount"})
                if unknown or "name" not in dead:
                    raise self.fail(f"{where}: deadLettersQueue needs name and maxReceiveCount")
                target, count = dead["name"], dead.get("maxReceiveCount", 3)
                if not isinstance(target, str):
                    raise self.fail(f"{where}: deadLettersQueue.name must be a string")
                if isinstance(count, str) and count.isascii() and count.isdigit():
                    count = int(count)  # HOCON reads a quoted number as a number
                if isinstance(count, bool) or not isinstance(count, int):
                    raise self.fail(
                        f"{where}: deadLettersQueue.maxReceiveCount must be a whole number, "
                        f"not {count!r}"
                    )
                attributes["RedrivePolicy"] = {
                    "deadLetterTargetArn": _unquote(target),
                    "maxReceiveCount": count,
                }
            elif key == "tags":
                tags = self.tags(_table(value, f"{where}: tags must be a block"), where)
            elif key in _QUEUE_UNSUPPORTED:
                self.warnings.append(f"{where}: {key} is not supported ({_QUEUE_UNSUPPORTED[key]})")
            else:
                self.warnings.append(f"{where}: {_unknown(key)}")
        # ElasticMQ writes `fifo = false` and `contentBasedDeduplication = false` for standard
        # queues; SQS knows neither attribute on a standard queue.
        if attributes.get("FifoQueue") is not True:
            attributes.pop("FifoQueue", None)
            if attributes.get("ContentBasedDeduplication") is False:
                del attributes["ContentBasedDeduplication"]
        return QueueDeclaration(name=name, attributes=attributes, tags=tags)

    def tags(self, table: Mapping[str, Any], where: str) -> dict[str, str]:
        tags = {}
        for key, value in table.items():
            if isinstance(value, bool):
                value = "true" if value else "false"
            elif isinstance(value, (int, float)):
                value = str(value)  # HOCON turns a number into a string when one is asked for
            if not isinstance(value, str):
                raise self.fail(f"{where}: tag {key!r} must be a string, not {value!r}")
            tags[_unquote(key)] = value
        return tags

    def seconds(self, value: Any, where: str) -> int:
        if isinstance(value, bool):
            raise self.fail(f"{where}: not a duration: {value!r}")
        if isinstance(value, (int, float)):
            return self.whole(value, where)
        if isinstance(value, timedelta):
            return self.whole(value.total_seconds(), where)
        if hasattr(value, "normalized"):  # dateutil's relativedelta, as pyhocon parses units
            total = (
                value.days * 86400 + value.hours * 3600 + value.minutes * 60 + value.seconds
            ) + value.microseconds / 1e6
            if value.months or value.years:
                raise self.fail(f"{where}: a duration in months or years is too long")
            return self.whole(total, where)
        match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*", str(value))
        if match and (match.group(2) or "s") in _UNIT_SECONDS:
            unit = _UNIT_SECONDS[match.group(2) or "s"]
            return self.whole(float(match.group(1)) * unit, where)
        raise self.fail(f"{where}: not a duration: {value!r}")

    def whole(self, seconds: float, where: str) -> int:
        """Whole seconds (SQS's unit); a number too large to be one is refused."""
        if isinstance(seconds, float) and not math.isfinite(seconds):
            raise self.fail(f"{where}: not a duration: {seconds!r} seconds")
        return int(seconds)


def _unknown(key: str) -> str:
    """A queue setting ElasticMQ does not have either: it ignores it, and so does sqsmock."""
    close = difflib.get_close_matches(key, _QUEUE_KEYS, n=1)
    hint = f" (ElasticMQ's is {close[0]})" if close else ""
    return f"unknown setting {key}{hint}, ignored as ElasticMQ ignores it"


def _table(value: Any, message: str = "must be a block") -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _NotATable(message)
    return value


class _NotATable(ValueError):
    pass


def _unquote(name: str) -> str:
    """A HOCON key as written: quoted keys (``"orders.fifo"``) keep their quotes in pyhocon."""
    if len(name) >= 2 and name[0] == name[-1] == '"':
        return name[1:-1]
    return name
