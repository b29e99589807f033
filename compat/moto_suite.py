"""Run moto's own SQS test suite against sqsmock.

    python compat/moto_suite.py [extra pytest arguments]

Needs a Python environment with sqsmock, ``moto==5.2.1``, pytest and freezegun installed.

What it does:

1. Downloads the pinned moto source distribution from PyPI with pip (it ships moto's tests) into
   ``.cache/moto-suite/`` under the repository, and checks its SHA-256.
2. Extracts the SQS test modules that exercise SQS through boto3 (``RUN_MODULES``); the modules
   left out are listed, each with its reason, in ``SKIPPED_MODULES``. The test files are extracted
   byte for byte, never edited.
3. Runs them with pytest, with a shim plugin that makes ``moto.mock_aws`` mean
   ``sqsmock.mock_sqs``. Real moto stays installed, so the tests' other imports (``moto.settings``,
   ``moto.core.DEFAULT_ACCOUNT_ID``, constants of ``moto.sqs.models``) resolve as usual; but only
   sqsmock answers SQS calls.
4. Deselects the tests listed in ``DESELECTED``, each with a one-line reason of one of two kinds:
   ``moto differs from AWS: ...`` (sqsmock follows AWS; the reason names what AWS answers and
   where that fact comes from: an answer recorded from real SQS, or the section of the behaviour
   reference) or ``not applicable: ...`` (the test looks at moto itself, not at SQS).
5. Prints a summary line and exits non-zero when any test that is not deselected fails, when a
   ``DESELECTED`` entry no longer matches any test, or when a test deselected as "moto differs
   from AWS" is one moto marks ``aws_verified`` (it passes against real AWS, so sqsmock is wrong).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

MOTO_VERSION = "5.2.1"
SDIST_NAME = f"moto-{MOTO_VERSION}.tar.gz"
SDIST_SHA256 = "ccb2f3e1dfa82e50e054bda98b0be708d244d2668364dcc1d45e8d3de6091bde"

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".cache" / "moto-suite"
WORK = CACHE / f"moto-{MOTO_VERSION}-sqs"

# The default account of both moto and sqsmock.
ACCOUNT_ID = "123456789012"

# Support files of moto's test tree that the SQS modules import (``from tests import
# aws_verified``, ``from tests.test_sqs import sqs_aws_verified``). Extracted unchanged.
SUPPORT_FILES = ["tests/__init__.py", "tests/test_sqs/__init__.py"]

# The test modules that run against sqsmock.
RUN_MODULES = [
    "tests/test_sqs/test_sqs.py",
    "tests/test_sqs/test_sqs_message_attributes.py",
]

# Every other module of moto's tests/test_sqs/, and why it does not run.
SKIPPED_MODULES = {
    "tests/test_sqs/test_server.py": (
        "moto's server mode: drives moto's own HTTP server through its Flask test client"
    ),
    "tests/test_sqs/test_sqs_authentication.py": (
        "needs IAM (creates users and policies) and moto's IAM authentication switch"
    ),
    "tests/test_sqs/test_sqs_cloudformation.py": (
        "needs CloudFormation to create and update the queues from stacks"
    ),
    "tests/test_sqs/test_sqs_integration.py": (
        "needs Lambda and CloudWatch Logs (event source mappings invoking functions), some of it "
        "through docker"
    ),
    "tests/test_sqs/test_sqs_multiaccount.py": (
        "needs STS: it reaches a second account through sts.assume_role credentials, which "
        "sqsmock does not map to accounts (use mock_sqs(account_id=...) for a second account)"
    ),
}

# moto's tests/conftest.py is not extracted: its ``account_id`` fixture asks STS (through
# mock_aws) for the caller's account, and its ``set_custom_id`` fixture drives moto's id manager.
# The shim below provides ``account_id`` instead; no SQS test uses ``set_custom_id``.

DIFFERS = "moto differs from AWS: "
NOT_APPLICABLE = "not applicable: "


def differs(aws: str, moto: str, source: str) -> str:
    """A "moto differs from AWS" reason: what AWS answers, where that fact comes from, what moto
    answers. ``source``: "AWS-recorded, §N" for an answer recorded from real SQS, or the section
    of the behaviour reference (sqs-behaviour.md) that states it from the SQS API reference."""
    return f"{DIFFERS}AWS answers {aws} ({source}); moto {moto}"


# Deselected tests: "module.py::test_name" (every parametrization) or
# "module.py::test_name[param]" (one). Each reason starts with DIFFERS or NOT_APPLICABLE.
# A DIFFERS reason names the AWS answer and its source: an answer recorded from real SQS
# ("AWS-recorded") where there is one, else the section (§) of sqs-behaviour.md, the reference of
# real SQS behaviour that sqsmock is measured against. None of the tests deselected here is one
# that moto marks ``aws_verified`` (run against real AWS by moto's maintainers).
_SPACED_NAME = differs(
    'InvalidAttributeName "Unknown Attribute VisibilityTimeout ." to CreateQueue with the '
    'attribute "VisibilityTimeout " (trailing space): an unknown attribute name',
    "strips the space and applies the timeout",
    "§1 table, §2",
)
_RECEIPT_MESSAGE = differs(
    'ReceiptHandleIsInvalid \'The input receipt handle "<handle>" is not a valid receipt '
    "handle.' to a malformed receipt handle",
    'says "The input receipt handle is invalid."',
    "§1 table",
)
_MOTO_BACKEND = (
    NOT_APPLICABLE + "reads the queue object of moto's backend (moto.sqs.models.sqs_backends)"
)
_MOTO_HELPER = (
    NOT_APPLICABLE + "unit test of moto's Queue._is_empty_redrive_policy helper; makes no SQS call"
)
DESELECTED: dict[str, str] = {
    "test_sqs.py::test_message_delay_is_more_than_15_minutes": differs(
        'InvalidParameterValue "Value <id> for parameter MessageDeduplicationId is invalid. '
        'Reason: The request include parameter that is not valid for this queue type." to a '
        "standard queue given MessageDeduplicationId (a FIFO-only parameter)",
        "accepts it and returns it as an attribute",
        "§3, §6",
    ),
    "test_sqs.py::test_create_queue_with_different_attributes_fail": differs(
        'InvalidAttributeName "Unknown Attribute FifoQueue." to CreateQueue of a standard queue '
        'with a FifoQueue attribute ("tru")',
        "creates the queue",
        "§2",
    ),
    "test_sqs.py::test_create_fifo_queue_with_dlq": differs(
        'InvalidAttributeName "Unknown Attribute FifoQueue." to CreateQueue of a standard queue '
        'with FifoQueue "false"',
        "creates the queue",
        "§2",
    ),
    "test_sqs.py::test_message_retention_period": differs(
        'InvalidAttributeValue "Invalid value for the parameter MessageRetentionPeriod." to '
        "MessageRetentionPeriod 1 (the range is 60-1209600)",
        "keeps messages for 1 second",
        "§2",
    ),
    "test_sqs.py::test_message_with_invalid_attributes": differs(
        "success to a message attribute named 'öther_encodings' (names may contain unicode "
        "letters)",
        "refuses it",
        "§3",
    ),
    "test_sqs.py::test_message_with_attributes_invalid_datatype": differs(
        "InvalidParameterValue \"The type of message (user) attribute 'timestamp' is invalid. "
        'You must use only the following supported type prefixes: Binary, Number, String." to '
        "an unknown DataType",
        "keeps an older wording",
        "§3",
    ),
    "test_sqs.py::test_get_queue_attributes": differs(
        'RedrivePolicy as compact JSON, {"deadLetterTargetArn":"<arn>","maxReceiveCount":2}',
        "(and the test) expects the spacing of Python's json.dumps",
        "§7",
    ),
    "test_sqs.py::test_permissions": differs(
        'a Policy with "Version": "2008-10-17" to AddPermission',
        'writes "2012-10-17"',
        "§2",
    ),
    "test_sqs.py::test_remove_permission_errors": differs(
        "InvalidParameterValue \"Value test for parameter Label is invalid. Reason: can't find "
        'label." to RemovePermission of an unknown label',
        'adds "on existing policy"',
        "§2",
    ),
    "test_sqs.py::test_send_messages_to_fifo_without_message_group_id": differs(
        "InvalidParameterValue for the whole request to a FIFO SendMessageBatch with an entry "
        "without MessageGroupId",
        "answers MissingParameter",
        "§4",
    ),
    "test_sqs.py::test_fifo_queue_send_duplicate_messages_after_deduplication_time_limit": (
        NOT_APPLICABLE + "shortens the deduplication window by patching "
        "moto.sqs.models.DEDUPLICATION_TIME_IN_SECONDS; sqsmock keeps SQS's 5 minutes (advance "
        "the mock's clock instead)"
    ),
    "test_sqs.py::test_message_becomes_inflight_when_received": _SPACED_NAME,
    "test_sqs.py::test_receive_message_with_explicit_visibility_timeout": _SPACED_NAME,
    "test_sqs.py::test_change_message_visibility": _SPACED_NAME,
    "test_sqs.py::test_queue_length": _SPACED_NAME,
    "test_sqs.py::test_delete_batch_operation": _SPACED_NAME,
    "test_sqs.py::test_delete_message_after_visibility_timeout": _SPACED_NAME,
    "test_sqs.py::test_change_message_visibility_on_unknown_receipt_handle": _RECEIPT_MESSAGE,
    "test_sqs.py::test_delete_message_errors": _RECEIPT_MESSAGE,
    "test_sqs.py::test_set_attributes_integer_fields_conversion": _MOTO_BACKEND,
    "test_sqs.py::test_is_empty_redrive_policy_returns_true_for_empty_and_falsy_values": (
        _MOTO_HELPER
    ),
    "test_sqs.py::test_is_empty_redrive_policy_returns_false_for_valid_policy_format": (
        _MOTO_HELPER
    ),
}


def check_deselect_reasons() -> None:
    for test_id, reason in DESELECTED.items():
        if not reason.startswith((DIFFERS, NOT_APPLICABLE)):
            raise SystemExit(
                f"moto_suite: reason of {test_id} must start with {DIFFERS!r} or {NOT_APPLICABLE!r}"
            )


# -- fetching and extracting ----------------------------------------------------------------


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_sdist() -> Path:
    """The pinned moto sdist, downloaded with pip on first use."""
    CACHE.mkdir(parents=True, exist_ok=True)
    sdist = CACHE / SDIST_NAME
    if not sdist.exists():
        print(f"moto_suite: downloading moto=={MOTO_VERSION} (sdist) into {CACHE}", flush=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                f"moto=={MOTO_VERSION}",
                "--no-binary",
                ":all:",
                "--no-deps",
                "--quiet",
                "--dest",
                str(CACHE),
            ],
            check=True,
        )
    actual = sha256_of(sdist)
    if actual != SDIST_SHA256:
        sdist.unlink()
        raise SystemExit(
            f"moto_suite: {SDIST_NAME} has SHA-256 {actual}, expected {SDIST_SHA256};"
            " removed it, run again to download it afresh"
        )
    return sdist


def extract(sdist: Path) -> list[Path]:
    """Lay out a fresh copy of the needed test files under WORK; return the modules to run."""
    if WORK.exists():
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True)
    prefix = f"moto-{MOTO_VERSION}/"
    wanted = {prefix + name for name in [*SUPPORT_FILES, *RUN_MODULES]}
    listed = set(RUN_MODULES) | set(SKIPPED_MODULES) | set(SUPPORT_FILES)
    with tarfile.open(sdist, "r:gz") as tar:
        members = {m.name: m for m in tar.getmembers() if m.isfile()}
        missing = wanted - set(members)
        if missing:
            raise SystemExit(f"moto_suite: not in {SDIST_NAME}: {sorted(missing)}")
        # A module that a later moto adds to tests/test_sqs/ must be classified, not lost.
        unclassified = sorted(
            name[len(prefix) :]
            for name in members
            if name.startswith(prefix + "tests/test_sqs/")
            and name.endswith(".py")
            and name[len(prefix) :] not in listed
        )
        if unclassified:
            raise SystemExit(f"moto_suite: classify these modules first: {unclassified}")
        for name in sorted(wanted):
            source = tar.extractfile(members[name])
            assert source is not None
            target = WORK / name[len(prefix) :]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read())
    (WORK / "pytest.ini").write_text(
        "[pytest]\n"
        "markers =\n"
        "    aws_verified: verified against AWS by moto (runs in mock_aws here)\n"
        "    requires_docker: needs docker\n"
    )
    return [WORK / name for name in RUN_MODULES]


# -- the shim -------------------------------------------------------------------------------


def check_moto() -> None:
    import moto

    if moto.__version__ != MOTO_VERSION:
        raise SystemExit(
            f"moto_suite: moto {moto.__version__} is installed; the suite is pinned to "
            f"moto=={MOTO_VERSION} (pip install moto=={MOTO_VERSION})"
        )


def deselect_key(nodeid: str) -> tuple[str, str]:
    """("test_sqs.py::test_x[p]", "test_sqs.py::test_x") for a node id under tests/test_sqs/."""
    module, _, name = nodeid.partition("::")
    short = f"{Path(module).name}::{name}"
    return short, short.split("[", 1)[0]


class Shim:
    """pytest plugin: ``moto.mock_aws`` as ``sqsmock.mock_sqs``, the ``account_id`` fixture, the
    deselection and the counting."""

    def __init__(self) -> None:
        self.outcomes: dict[str, str] = {}
        self.deselected: list[tuple[str, str]] = []
        self.unmatched: list[str] = []
        # "moto differs from AWS" entries on tests moto ran against real AWS: a contradiction.
        self.verified: list[str] = []

    def pytest_configure(self, config: Any) -> None:
        # Before collection imports the test modules (and tests/__init__.py), which bind
        # ``from moto import mock_aws`` at import time.
        import moto

        import sqsmock

        moto.mock_aws = sqsmock.mock_sqs  # type: ignore[assignment]
        # Never let a test reach AWS, whatever the calling environment says.
        os.environ["MOTO_TEST_ALLOW_AWS_REQUEST"] = "false"
        os.environ.pop("TEST_SERVER_MODE", None)

    @pytest.fixture(name="account_id")
    def account_id(self) -> str:
        """Stands for moto's fixture of that name, which asks STS: the mock's default account."""
        return ACCOUNT_ID

    @pytest.hookimpl(tryfirst=True)  # before -k/-m, so that every entry is checked
    def pytest_collection_modifyitems(self, config: Any, items: list[Any]) -> None:
        keep, drop, used = [], [], set()
        for item in items:
            exact, base = deselect_key(item.nodeid)
            key = exact if exact in DESELECTED else base if base in DESELECTED else None
            if key is None:
                keep.append(item)
            else:
                used.add(key)
                drop.append(item)
                self.deselected.append((exact, DESELECTED[key]))
                if DESELECTED[key].startswith(DIFFERS) and item.get_closest_marker("aws_verified"):
                    self.verified.append(exact)
        self.unmatched = sorted(set(DESELECTED) - used)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.failed:
            self.outcomes[report.nodeid] = "failed"
        elif report.skipped:
            self.outcomes.setdefault(report.nodeid, "skipped")
        elif report.when == "call" and report.passed:
            self.outcomes.setdefault(report.nodeid, "passed")

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        write = terminalreporter.write_line
        terminalreporter.section("modules not run (moto_suite.SKIPPED_MODULES)")
        for module, reason in SKIPPED_MODULES.items():
            write(f"{module}: {reason}")
        terminalreporter.section("deselected (moto_suite.DESELECTED)")
        for test_id, reason in self.deselected:
            write(f"{test_id}: {reason}")
        if self.unmatched:
            terminalreporter.section("stale DESELECTED entries (match no test)")
            for test_id in self.unmatched:
                write(test_id)
        if self.verified:
            terminalreporter.section("DESELECTED as differing from AWS, but verified against AWS")
            for test_id in self.verified:
                write(test_id)

    def counts(self) -> dict[str, int]:
        counts = {"passed": 0, "failed": 0, "skipped": 0}
        for outcome in self.outcomes.values():
            counts[outcome] += 1
        counts["deselected"] = len(self.deselected)
        return counts


# -- main -----------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    check_deselect_reasons()
    check_moto()
    modules = extract(fetch_sdist())
    shim = Shim()
    args = [
        "-c",
        str(WORK / "pytest.ini"),
        "--rootdir",
        str(WORK),
        "-p",
        "no:cacheprovider",
        "-q",
        "-rfE",
        *argv,
        *(str(m.relative_to(WORK)) for m in modules),
    ]
    cwd = Path.cwd()
    os.chdir(WORK)  # node ids and paths in the report relative to the extracted tree
    try:
        status = pytest.main(args, plugins=[shim])
    finally:
        os.chdir(cwd)
    c = shim.counts()
    print(
        f"moto_suite: {c['passed']} passed, {c['failed']} failed, {c['deselected']} deselected, "
        f"{c['skipped']} skipped (moto {MOTO_VERSION} tests/test_sqs on sqsmock)"
    )
    if shim.unmatched:
        print(f"moto_suite: {len(shim.unmatched)} DESELECTED entries match no test")
        return 3
    if shim.verified:
        print(
            f"moto_suite: {len(shim.verified)} tests deselected as differing from AWS are marked "
            "aws_verified by moto (they pass against AWS): fix sqsmock, then drop the entries"
        )
        return 4
    if c["failed"]:
        return 1
    return 0 if status in (0, 5) else int(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
