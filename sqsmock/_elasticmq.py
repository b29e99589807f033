"""ElasticMQ's ``elasticmq.conf`` as a queue declaration file, so its users can switch unchanged.

Read with pyhocon (``pip install 'sqsmock[elasticmq]'``). What maps:

- ``queues { name { ... } }``: ``defaultVisibilityTimeout`` → VisibilityTimeout, ``delay`` →
  DelaySeconds, ``receiveMessageWait`` → ReceiveMessageWaitTimeSeconds (durations such as
  ``10 seconds``), ``deadLettersQueue { name, maxReceiveCount }`` → RedrivePolicy, ``fifo`` →
  FifoQueue, ``contentBasedDeduplication``, ``tags``;
- ``rest-sqs { bind-port, bind-hostname }`` → the server's port and host (flags win);
- ``aws { region, accountId }`` → the default region and account.

Anything else is named in a warning (``Declarations.warnings``), never dropped silently.
ElasticMQ's own defaults file (``include classpath("application.conf")``) is what sqsmock does
anyway, so that include is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from ._declare import ConfigError, Declarations, QueueDeclaration

__all__ = ["load_elasticmq"]

_CLASSPATH_INCLUDE = re.compile(r"^\s*include\s+classpath\(\s*\"[^\"]*\"\s*\)\s*$", re.MULTILINE)
_DURATIONS = {
    "defaultVisibilityTimeout": "VisibilityTimeout",
    "delay": "DelaySeconds",
    "receiveMessageWait": "ReceiveMessageWaitTimeSeconds",
}
_FLAGS = {"fifo": "FifoQueue", "contentBasedDeduplication": "ContentBasedDeduplication"}
#: Top-level settings that sqsmock has no use for, each with why (said in the warning).
_IGNORED = {
    "node-address": "queue URLs follow the Host of each request",
    "generate-node-address": "queue URLs follow the Host of each request",
    "rest-stats": "sqsmock has no statistics endpoint; see /_sqsmock/queues and /_sqsmock/metrics",
    "queues-storage": "use --persistence redis://... to keep queues",
    "messages-storage": "use --persistence redis://... to keep messages",
    "akka": "sqsmock does not run on Akka",
    "pekko": "sqsmock does not run on Pekko",
}
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
    try:
        tree = ConfigFactory.parse_string(_CLASSPATH_INCLUDE.sub("", text))
    except (ConfigException, Exception) as error:  # pyparsing's errors are not pyhocon's
        raise ConfigError(f"{path}: not valid HOCON: {str(error).splitlines()[-1]}") from None
    try:
        return _Reader(path).read(tree)
    except _NotATable as error:
        raise ConfigError(f"{path}: {error}") from None


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
        for key, value in tree.items():
            if key == "queues":
                queues = [self.queue(_unquote(n), spec) for n, spec in _table(value).items()]
            elif key == "rest-sqs":
                server = self.rest_sqs(_table(value))
            elif key == "aws":
                region, account = self.aws(_table(value))
            elif key in _IGNORED:
                self.warnings.append(f"{key} is not supported: {_IGNORED[key]}")
            else:
                self.warnings.append(f"{key} is not supported and was ignored")
        return Declarations(
            source=self.path,
            queues=tuple(queues),
            region=region,
            account=account,
            server=server,
            warnings=tuple(self.warnings),
        )

    def rest_sqs(self, table: Mapping[str, Any]) -> dict[str, Any]:
        server: dict[str, Any] = {}
        for key, value in table.items():
            if key == "bind-port":
                if isinstance(value, bool) or not isinstance(value, int):
                    raise self.fail(f"rest-sqs.bind-port must be a number, not {value!r}")
                server["port"] = value
            elif key == "bind-hostname":
                server["host"] = str(value)
            elif (key, value) in (("enabled", True), ("sqs-limits", "strict")):
                pass
            elif key == "sqs-limits":
                self.warnings.append(
                    f"rest-sqs.sqs-limits = {value} is not supported: sqsmock always applies "
                    "SQS's own limits (strict)"
                )
            else:
                self.warnings.append(f"rest-sqs.{key} is not supported and was ignored")
        return server

    def aws(self, table: Mapping[str, Any]) -> tuple[str | None, str | None]:
        region = account = None
        for key, value in table.items():
            if key == "region":
                region = str(value)
            elif key == "accountId":
                account = f"{value:012d}" if isinstance(value, int) else str(value)
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
                attributes["RedrivePolicy"] = {
                    "deadLetterTargetArn": _unquote(str(dead["name"])),
                    "maxReceiveCount": dead.get("maxReceiveCount", 3),
                }
            elif key == "tags":
                tags = {str(k): str(v) for k, v in _table(value, f"{where}: tags").items()}
            else:
                self.warnings.append(f"{where}: {key} is not supported and was ignored")
        # ElasticMQ writes `fifo = false` and `contentBasedDeduplication = false` for standard
        # queues; SQS knows neither attribute on a standard queue.
        if attributes.get("FifoQueue") is not True:
            attributes.pop("FifoQueue", None)
            if attributes.get("ContentBasedDeduplication") is False:
                del attributes["ContentBasedDeduplication"]
        return QueueDeclaration(name=name, attributes=attributes, tags=tags)

    def seconds(self, value: Any, where: str) -> int:
        if isinstance(value, bool):
            raise self.fail(f"{where}: not a duration: {value!r}")
        if isinstance(value, (int, float)):
            return int(value)
        if isinstance(value, timedelta):
            return int(value.total_seconds())
        if hasattr(value, "normalized"):  # dateutil's relativedelta, as pyhocon parses units
            total = (
                value.days * 86400 + value.hours * 3600 + value.minutes * 60 + value.seconds
            ) + value.microseconds / 1e6
            if value.months or value.years:
                raise self.fail(f"{where}: a duration in months or years is too long")
            return int(total)
        match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*", str(value))
        if match and (match.group(2) or "s") in _UNIT_SECONDS:
            return int(float(match.group(1)) * _UNIT_SECONDS[match.group(2) or "s"])
        raise self.fail(f"{where}: not a duration: {value!r}")


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
