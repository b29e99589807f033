"""The options of a mock, named once: each field's default, check and one-line doc side by side.

``mock_sqs(...)``, ``serve(...)``, ``sqsmock serve --...``, the pytest marker and its ini keys
all take the same options in their own syntax. Each front end only parses its syntax into one of
these frozen dataclasses; the dataclass fills in the defaults and refuses a bad value with the
message users know, and the handle and the runtime read it. A new option is a new field here
(plus a ``cli`` entry in its metadata when ``sqsmock serve`` should take it as a flag).

``StateOptions`` are what every activation needs (the region, the store, the journal...);
``MockOptions`` adds what the in-process mock alone has. The server's are ``ServerOptions`` in
``_server_options``, which needs the HTTP side's checks. This module sits below the runtime,
which reads the options it is given.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, Protocol, TypeAlias, TypeVar

from . import _regions
from ._config import load
from ._declare import Declarations
from ._engine import Clock, make_clock
from ._features.chaos import Delivery, as_delivery
from ._features.journal import DEFAULT_BYTE_LIMIT, DEFAULT_LIMIT, CallJournal
from ._store import DEFAULT_NAMESPACE, DEFAULT_TIMEOUT, check_timeout, default_namespace

__all__ = [
    "ClockOption",
    "ConfigOption",
    "MockOptions",
    "Persistence",
    "RedisClient",
    "StateOptions",
    "add_arguments",
    "check_options",
    "check_region",
    "from_arguments",
    "options_error",
]

DEFAULT_REGION = "us-east-1"
DEFAULT_ACCOUNT = "123456789012"
_ACCOUNT_ID = re.compile(r"[0-9]{12}")

Options = TypeVar("Options", bound="StateOptions")

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

#: The ``config=`` option: a TOML or ElasticMQ file's path, a dict of the same shape, or None.
ConfigOption: TypeAlias = "str | os.PathLike[str] | Mapping[str, Any] | Declarations | None"

#: The default of an option that ``__post_init__`` fills in from elsewhere (the environment,
#: the mode, the test session); passing None explicitly means the same.
BY_DEFAULT: Any = None

#: ``allow_aws`` of a mock that does not set it; the pytest plugin's ``sqsmock_allow_aws`` ini
#: option sets it for a test session.
ALLOW_AWS_DEFAULT = False
#: ``join`` of a mock that does not set it; the pytest plugin's ``sqsmock_join`` ini option
#: sets it for a test session.
JOIN_DEFAULT = False


def about(doc: str, *, flag: str | None = None, first: bool = False, **cli: Any) -> dict[str, Any]:
    """A field's metadata: its one-line ``doc`` and, if ``sqsmock serve`` takes it, its ``flag``
    with the keywords of argparse's ``add_argument`` (a ``default`` of None there: left to the
    config file, then the field's default); ``first``: listed before the others in ``--help``."""
    metadata: dict[str, Any] = {"doc": doc}
    if flag is not None:
        metadata["cli"] = {"flag": flag, "first": first, **cli}
    return metadata


def check_region(region: object) -> None:
    """Refuse a region name AWS does not have (a typo such as ``"us-east-l"``)."""
    _regions.check_region(region)


def check_options(region: object, account_id: object, namespace: object) -> None:
    """Refuse a bad region, account or namespace."""
    check_region(region)
    if not isinstance(account_id, str) or not _ACCOUNT_ID.fullmatch(account_id):
        raise ValueError(f"account_id must be a 12-digit string, not {account_id!r}")
    if not isinstance(namespace, str) or not namespace:
        raise ValueError("namespace must be a non-empty string")


@dataclass(frozen=True, kw_only=True)
class StateOptions:
    """What every activation needs: where its queues live, its clock, its store, its journal."""

    region: str = field(
        default=DEFAULT_REGION,
        metadata=about(
            f"the default region, a name AWS has (default {DEFAULT_REGION})",
            flag="--region",
            default=None,
            help=f"default region (default {DEFAULT_REGION})",
        ),
    )
    account_id: str = field(
        default=DEFAULT_ACCOUNT,
        metadata=about(
            f"the default account, 12 digits (default {DEFAULT_ACCOUNT})",
            flag="--account-id",
            default=None,
            help=f"default account (default {DEFAULT_ACCOUNT})",
        ),
    )
    clock: ClockOption = field(
        default="wall",
        metadata=about(
            '"wall" (default: real time), "frozen" (moves only when advanced) or a sqsmock Clock',
            flag="--clock",
            choices=("wall", "frozen"),
            default="wall",
            help="wall: real time; frozen: moves only when advanced (default %(default)s)",
        ),
    )
    persistence: Persistence = field(
        default=None,
        metadata=about(
            "a redis-py or fakeredis client, or a redis:// URL: state survives restarts",
            flag="--persistence",
            metavar="URL",
            default=None,
            help="keep state in Redis, e.g. redis://127.0.0.1:6379/0",
        ),
    )
    namespace: str = field(
        default=BY_DEFAULT,
        metadata=about(
            f"the Redis key prefix (default {DEFAULT_NAMESPACE}, per worker under pytest-xdist)",
            flag="--namespace",
            default=DEFAULT_NAMESPACE,
            help="Redis key prefix (default %(default)s)",
        ),
    )
    persistence_timeout: float = field(
        default=DEFAULT_TIMEOUT,
        metadata=about(
            f"seconds a client built from a URL waits for Redis (default {DEFAULT_TIMEOUT:g})",
            flag="--persistence-timeout",
            type=float,
            default=DEFAULT_TIMEOUT,
            metavar="SECONDS",
            help="how long a call waits for Redis before it fails (default %(default)s)",
        ),
    )
    journal_limit: int | None = field(
        default=DEFAULT_LIMIT,
        metadata=about(
            f"calls kept in the call journal (default {DEFAULT_LIMIT}; None: no limit, 0: none)",
            flag="--journal-limit",
            type=int,
            default=DEFAULT_LIMIT,
            metavar="N",
            help="calls kept in the call journal, /_sqsmock/calls (default %(default)s; 0: none)",
        ),
    )
    journal_byte_limit: int | None = field(
        default=DEFAULT_BYTE_LIMIT,
        metadata=about(
            "bytes the call journal keeps (default 64 MiB; None: no limit, 0: none)",
            flag="--journal-byte-limit",
            type=int,
            default=DEFAULT_BYTE_LIMIT,
            metavar="BYTES",
            help="bytes kept in the call journal (default %(default)s: 64 MiB; 0: none)",
        ),
    )
    delivery: Delivery | Mapping[str, Any] | None = field(
        default=None,
        metadata=about("a Delivery or its keywords as a dict: at-least-once delivery"),
    )
    config: ConfigOption = field(
        default=None,
        metadata=about(
            "queues to create at every start and reset: a TOML file, an ElasticMQ .conf, a dict",
            flag="--config",
            first=True,
            metavar="FILE",
            default=None,
            help="queues to create at start: a TOML file, or ElasticMQ's .conf (its rest-sqs "
            "bind-port and bind-hostname and aws accountId apply unless these flags say "
            "otherwise)",
        ),
    )
    elasticmq: bool = field(
        default=BY_DEFAULT,
        metadata=about(
            "ElasticMQ's conventions (default: on when config is ElasticMQ's .conf): a deleted "
            "queue may be re-created at once; a server also takes any region as the same one, "
            "gives ElasticMQ's queue URLs and account 000000000000",
            flag="--elasticmq",
            action="store_true",
            default=None,
            help="ElasticMQ's conventions (on with an ElasticMQ .conf): account 000000000000, "
            "any region a client names reaches the same queues, queue URLs "
            "http://host:port/<account>/<name> (node-address's, if the file gives one), a "
            "deleted queue can be re-created at once",
        ),
    )
    #: ``config`` read and checked (None without one): created at each start.
    declarations: Declarations | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Fill in the defaults left to it and refuse a bad option, in the order users see."""
        if self.namespace is None:
            self._set("namespace", default_namespace())
        check_options(self.region, self.account_id, self.namespace)
        make_clock(self.clock)  # a bad clock is refused now, not at the first activation
        CallJournal(self.journal_limit, self.journal_byte_limit)  # so is a bad limit
        self._set("persistence_timeout", check_timeout(self.persistence_timeout))
        self._set("delivery", as_delivery(self.delivery))
        declarations = None
        if self.config is not None:
            declarations = load(self.config)
            declarations.check(self.region, self.account_id)
            self._set("declarations", declarations)
        if self.elasticmq is None:
            self._set("elasticmq", declarations is not None and declarations.elasticmq)
        self._set("elasticmq", bool(self.elasticmq))

    @property
    def relaxed_limits(self) -> bool:
        """ElasticMQ's ``rest-sqs.sqs-limits = relaxed``, from its conf."""
        declared = self.declarations
        return declared is not None and declared.server.get("relaxed_limits") is True

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The options' names, in the order their documentation gives them."""
        return tuple(f.name for f in fields(cls) if f.init)

    @classmethod
    def check_names(cls, keywords: Mapping[str, Any], caller: str) -> None:
        """TypeError naming each of ``caller``'s keyword arguments that is not an option (with
        the option it most likely meant)."""
        names = cls.names()
        unknown = [name for name in keywords if name not in names]
        if unknown:
            raise options_error(caller, unknown, names)

    @classmethod
    def from_keywords(cls: type[Options], keywords: Mapping[str, Any], caller: str) -> Options:
        """These options from ``caller``'s keyword arguments (TypeError for an unknown one)."""
        cls.check_names(keywords, caller)
        return cls(**keywords)


@dataclass(frozen=True, kw_only=True)
class MockOptions(StateOptions):
    """The options of ``mock_sqs``."""

    allow_aws: bool = field(
        default=BY_DEFAULT,
        metadata=about(
            "let a request to real AWS that no mock answered go out (default: refused, or the "
            "sqsmock_allow_aws ini option)"
        ),
    )

    join: bool = field(
        default=BY_DEFAULT,
        metadata=about(
            "started while a mock with the same options is active, share its state as moto's "
            "nested mock_aws() do (default: a state of its own, or the sqsmock_join ini option)"
        ),
    )
    sns: bool = field(
        default=False,
        metadata=about(
            "answer SNS calls too: topics and subscriptions that deliver into this mock's "
            "queues (default: SNS is left to whatever else answers it, such as moto)"
        ),
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        self._set("sns", bool(self.sns))
        self._set(
            "allow_aws", ALLOW_AWS_DEFAULT if self.allow_aws is None else bool(self.allow_aws)
        )
        self._set("join", JOIN_DEFAULT if self.join is None else bool(self.join))


def options_error(caller: str, unknown: list[str], names: tuple[str, ...]) -> TypeError:
    parts = []
    for name in unknown:
        close = difflib.get_close_matches(name, names, n=1)
        parts.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    return TypeError(
        f"{caller}() got unexpected option{'s' if len(unknown) > 1 else ''} "
        f"{', '.join(parts)}; its options are {', '.join(names)}"
    )


def describe(cls: type[StateOptions], indent: str = "") -> str:
    """One line per option, its name and doc: for a front end's docstring."""
    return "\n".join(f"{indent}- ``{f.name}``: {f.metadata['doc']}" for f in fields(cls) if f.init)


# -- command-line flags ------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser, cls: type[StateOptions]) -> None:
    """A flag for each option of ``cls`` whose metadata names one, its value under the option's
    own name."""
    flagged = [option for option in fields(cls) if "cli" in option.metadata]
    for option in sorted(flagged, key=lambda option: not option.metadata["cli"]["first"]):
        cli = option.metadata["cli"]
        keywords = {key: value for key, value in cli.items() if key not in ("flag", "first")}
        parser.add_argument(cli["flag"], dest=option.name, **keywords)


def from_arguments(args: argparse.Namespace, cls: type[StateOptions]) -> dict[str, Any]:
    """The options of ``cls`` the command line gave: its flags' values, leaving out a None for
    an option whose default is not None (the config file, else the default, decides it)."""
    given: dict[str, Any] = {}
    for option in fields(cls):
        if "cli" not in option.metadata:
            continue
        value = getattr(args, option.name)
        if value is None and option.default is not None:
            continue
        given[option.name] = value
    return given
