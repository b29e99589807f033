"""Random config files, TOML and ElasticMQ's HOCON, meet nothing but ``ConfigError``: reading
them and checking them as a start would (``load``, then ``check``) either works or names what is
wrong in the file, never raises anything else (which ``sqsmock serve`` would end with as a
traceback).

The documents are built from nested tables whose keys are mostly the ones the readers look for
(sections, queue settings, attribute and policy names), with values of every TOML type (or
HOCON's numbers, durations, strings, blocks and lists); besides them, random text. The runs are
derandomized: the same examples each time."""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Iterator
from datetime import date, datetime, time, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sqsmock import ConfigError
from sqsmock._config import load

pytest.importorskip("pyhocon")

QUICK = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,  # the same examples each run: nothing to remember between runs
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)  # no lone surrogates
QUEUE_NAMES = st.sampled_from(["q", "orders.fifo", "dlq", "a" * 81, "no spaces", ""]) | TEXT


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def read(path: Path, text: str) -> None:
    """What ``sqsmock serve --config`` does with a file before it listens."""
    path.write_text(text, encoding="utf-8")
    try:
        declarations = load(str(path))
        declarations.check("us-east-1", "123456789012")
    except ConfigError as error:
        assert str(error).startswith(f"{path}: "), error
        assert "\n" not in str(error), error  # one line


# -- TOML ---------------------------------------------------------------------------------------

TOML_KEYS = (
    st.sampled_from(
        [
            "defaults", "queues", "region", "account", "attributes", "tags", "VisibilityTimeout",
            "DelaySeconds", "FifoQueue", "ContentBasedDeduplication", "MessageRetentionPeriod",
            "Policy", "RedrivePolicy", "RedriveAllowPolicy", "deadLetterTargetArn",
            "maxReceiveCount", "sourceQueueArns", "redrivePermission", "Version", "Statement",
            "Condition",
        ]
    )
    | TEXT
)  # fmt: skip
TOML_SCALARS = st.one_of(
    TEXT,
    st.sampled_from(["us-east-1", "eu-west-1", "us-east-l", "123456789012", "dlq", "true"]),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(),
    st.booleans(),
    st.datetimes(timezones=st.sampled_from([None, timezone.utc])),
    st.dates(),
    st.times(),
)
TOML_VALUES = st.recursive(
    TOML_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TOML_KEYS, inner, max_size=3),
    max_leaves=12,
)
ATTRIBUTE_NAMES = st.sampled_from(
    [
        "VisibilityTimeout", "DelaySeconds", "FifoQueue", "ContentBasedDeduplication",
        "MessageRetentionPeriod", "Policy", "RedrivePolicy", "RedriveAllowPolicy",
    ]
)  # fmt: skip
REGIONS = st.sampled_from([st.just("eu-west-1")] * 4 + [TOML_SCALARS]).flatmap(lambda s: s)
#: A queue of the right shape, with values of any type where a value goes.
TOML_QUEUES = st.fixed_dictionaries(
    {},
    optional={
        "attributes": st.dictionaries(ATTRIBUTE_NAMES, TOML_SCALARS, max_size=2)
        | st.dictionaries(
            st.sampled_from(["Policy", "RedrivePolicy", "RedriveAllowPolicy"]),
            st.dictionaries(TOML_KEYS, TOML_VALUES, min_size=1, max_size=3),
            min_size=1,
        ),
        "tags": st.dictionaries(TEXT, TEXT, max_size=2) | st.dictionaries(TEXT, TOML_VALUES),
    },
)
TOML_SHAPED = st.fixed_dictionaries(
    {"queues": st.dictionaries(QUEUE_NAMES, TOML_QUEUES, min_size=1, max_size=3)},
    optional={"defaults": st.fixed_dictionaries({}, optional={"region": REGIONS})},
)
TOML_ANYTHING = st.fixed_dictionaries(
    {},
    optional={
        "defaults": st.dictionaries(st.sampled_from(["region", "account"]), TOML_VALUES),
        "queues": st.dictionaries(QUEUE_NAMES, TOML_VALUES, max_size=3),
    },
)
#: Mostly documents of the right shape (their values reach the deepest checks), some not.
TOML_DOCUMENTS = st.sampled_from([TOML_SHAPED] * 4 + [TOML_ANYTHING]).flatmap(lambda s: s)


def toml_string(text: str) -> str:
    escaped = (
        f"\\u{ord(c):04x}" if c in '"\\' or ord(c) < 0x20 or ord(c) == 0x7F else c for c in text
    )
    return '"' + "".join(escaped) + '"'


def toml(value: Any) -> str:
    """A value as TOML (tables inline)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return repr(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml(v) for v in value) + "]"
    return "{ " + ", ".join(f"{toml_string(k)} = {toml(v)}" for k, v in value.items()) + " }"


def toml_document(document: dict[str, Any]) -> str:
    return "".join(f"{toml_string(key)} = {toml(value)}\n" for key, value in document.items())


@QUICK
@given(document=TOML_DOCUMENTS)
def test_random_toml_documents_meet_only_config_errors(folder, document):
    read(folder / "queues.toml", toml_document(document))


TOML_TOKENS = st.sampled_from(
    [
        "[queues.q]", "[queues]", "[defaults]", "attributes", "Policy", "tags", " = ", "{", "}",
        "[", "]", ",", "\n", '"x"', "'y'", "1", "-1", "1e400", "inf", "nan", "2012-10-17",
        "07:32:00", "1979-05-27T07:32:00Z", "true", "#", ".", '"""', "\\",
    ]
)  # fmt: skip


@QUICK
@given(text=st.lists(TOML_TOKENS | TEXT, max_size=30).map("".join))
@example(text="[queues.q]\nattributes = { X = " + "[" * 3000 + "]" * 3000 + " }\n")
def test_random_toml_text_meets_only_config_errors(folder, text):
    read(folder / "queues.toml", text)


# -- ElasticMQ's HOCON ------------------------------------------------------------------------

HOCON_KEYS = (
    st.sampled_from(
        [
            "queues", "rest-sqs", "aws", "node-address", "akka", "defaultVisibilityTimeout",
            "delay", "receiveMessageWait", "deadLettersQueue", "name", "maxReceiveCount", "fifo",
            "contentBasedDeduplication", "tags", "copyTo", "bind-port", "bind-hostname",
            "enabled", "sqs-limits", "region", "accountId",
        ]
    )
    | TEXT.filter(lambda key: not key.strip().startswith("include"))
)  # fmt: skip


def hocon_key(key: str) -> str:
    plain = key and all(c.isascii() and (c.isalnum() or c in "-_") for c in key)
    return key if plain else json.dumps(key)


def hocon_block(block: dict[str, str]) -> str:
    return "{\n" + "".join(f"{hocon_key(k)} = {v}\n" for k, v in block.items()) + "}"


HOCON_SCALARS = st.one_of(
    st.integers().map(str),
    st.floats(allow_nan=False).map(lambda f: repr(f) if math.isfinite(f) else "1e400"),
    st.sampled_from(["true", "false", "null", "1e400", "-5", "99999", "eu-west-1", "dlq"]),
    st.tuples(
        st.integers(min_value=-5, max_value=10**30),
        st.sampled_from(["ms", "s", "seconds", "m", "h", "d", "days", "weeks", "months", "x"]),
    ).map(lambda pair: f"{pair[0]} {pair[1]}"),
    TEXT.map(json.dumps),
)
HOCON_VALUES = st.recursive(
    HOCON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3).map(lambda items: "[" + ", ".join(items) + "]")
        | st.dictionaries(HOCON_KEYS, inner, max_size=3).map(hocon_block)
    ),
    max_leaves=12,
)


DURATION_SETTINGS = ("defaultVisibilityTimeout", "delay", "receiveMessageWait")
#: What a number of seconds or of receives may be written as, the troublesome often.
NUMBERISH = st.sampled_from(
    [
        st.integers().map(str),
        st.floats().map(lambda f: repr(f) if math.isfinite(f) else "1e400"),
        st.tuples(
            st.integers(min_value=0, max_value=10**30), st.sampled_from(["ms", "s", "m", "d"])
        ).map(lambda pair: f"{pair[0]} {pair[1]}"),
    ]
    + [st.sampled_from(["1e400", "-1e400", "3 seconds", '"1e400 s"', "null", '"12"', "NaN"])] * 2
).flatmap(lambda s: s)
#: A queue of the right shape, with values of any type where a value goes.
HOCON_QUEUES = st.fixed_dictionaries(
    {},
    optional={
        **{name: NUMBERISH for name in DURATION_SETTINGS},
        "fifo": HOCON_SCALARS,
        "deadLettersQueue": st.fixed_dictionaries(
            {"name": HOCON_VALUES}, optional={"maxReceiveCount": NUMBERISH}
        ).map(hocon_block)
        | HOCON_VALUES,
        "tags": st.dictionaries(HOCON_KEYS, HOCON_VALUES, max_size=2).map(hocon_block),
        "copyTo": HOCON_VALUES,
    },
).map(hocon_block)
HOCON_SHAPED = st.fixed_dictionaries(
    {"queues": st.dictionaries(QUEUE_NAMES, HOCON_QUEUES, min_size=1, max_size=3).map(hocon_block)},
    optional={
        "rest-sqs": st.fixed_dictionaries(
            {}, optional={"bind-port": NUMBERISH, "bind-hostname": HOCON_VALUES}
        ).map(hocon_block),
        "aws": st.fixed_dictionaries(
            {}, optional={"region": HOCON_VALUES, "accountId": NUMBERISH}
        ).map(hocon_block),
    },
)
HOCON_ANYTHING = st.dictionaries(HOCON_KEYS, HOCON_VALUES, max_size=3)
#: Mostly documents of the right shape (their values reach the deepest checks), some not.
HOCON_DOCUMENTS = st.sampled_from([HOCON_SHAPED] * 4 + [HOCON_ANYTHING]).flatmap(lambda s: s)


@QUICK
@given(document=HOCON_DOCUMENTS)
def test_random_hocon_documents_meet_only_config_errors(folder, document):
    read(folder / "elasticmq.conf", hocon_block(document)[2:-1])


HOCON_TOKENS = st.sampled_from(
    [
        "queues", "q", "delay", "maxReceiveCount", "deadLettersQueue", "name", "tags", " = ",
        ": ", "{", "}", "[", "]", ",", "\n", '"x"', "1", "1e400", "3 seconds", "${q}", "${?x}",
        "+=", "#", "//", ".", '"""', "null", "true",
    ]
)  # fmt: skip


@QUICK
@given(text=st.lists(HOCON_TOKENS | TEXT, max_size=30).map("".join))
@example(text="queues { q { deadLettersQueue { name = d, maxReceiveCount = 3 seconds } } }")
def test_random_hocon_text_meets_only_config_errors(folder, text):
    read(folder / "elasticmq.conf", text)
