"""Run LocalStack's AWS-validated SQS tests against sqsmock.

    python compat/localstack_suite.py --checkout PATH [--mode inprocess|json|query ...]
                                      [-- extra pytest arguments]

``PATH`` (or ``$LOCALSTACK_CHECKOUT``) is a checkout of https://github.com/localstack/localstack;
this script downloads nothing (see compat/README.md for getting one and for the environment it
needs: sqsmock, pytest, ``localstack-snapshot`` and a few of LocalStack's plain dependencies).

LocalStack's ``tests/aws/services/sqs/test_sqs.py`` is run in place, unchanged, by pytest with
LocalStack's conftest files switched off (``--noconftest``: they start LocalStack) and a shim
plugin instead (``Shim`` below). The tests LocalStack marks ``markers.aws.validated`` have been
run against real AWS and their answers recorded in ``test_sqs.snapshot.json``; only those run
here. The shim gives them:

* ``aws_client`` (``.sqs`` a JSON-protocol client, ``.sqs_query`` a query-protocol client built
  from the query model in ``tests/data``), ``aws_client_factory``, ``aws_http_client_factory``
  (LocalStack's own ``SigningHttpClient``, with AWS host names pointed at the server),
  ``sqs_create_queue``, ``sqs_queue`` and the other SQS fixtures, ``account_id``,
  ``region_name``, ``cleanups``; a test that needs a second account (``secondary_aws_client``)
  or another service (Lambda) is skipped;
* ``snapshot``: localstack-snapshot's session on the recorded file, with the transformers
  LocalStack's conftest adds (account, region, partition, its basic transformers, and the
  ``TransformerUtility`` the tests call), verifying every path: LocalStack's
  ``skip_snapshot_verify`` exemptions are its own parity gaps, not sqsmock's;
* ``is_aws_cloud()`` true: sqsmock claims to answer as AWS does, so the tests take their AWS
  branches (AWS's limits, AWS's endpoints);
* ``time.sleep`` inside the test module advances sqsmock's clock instead of sleeping (the waits
  are for SQS time to pass: retention, visibility, delays). Real-time waits elsewhere (long
  polls, LocalStack's ``poll_condition``) stay real.

Modes: ``inprocess`` (``mock_sqs``; the query-protocol client and raw HTTP need a server, so
those tests are skipped), ``json`` (``sqsmock.serve()``; ``aws_client.sqs`` speaks JSON,
``sqs_query`` and raw HTTP the query protocol) and ``query`` (``sqsmock.serve()``; every SQS
client speaks the query protocol).

Each failure is looked up in ``KNOWN`` (one-line reason: sqsmock differs from AWS, a harness
limitation, or not applicable). The run prints counts per mode and every failure with its reason;
it exits non-zero when a failure is not in ``KNOWN`` or a ``KNOWN`` entry matches nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
QUERY_MODEL = REPO / "tests" / "data" / "sqs-2012-11-05-query.service-2.json.gz"
TEST_FILE = "tests/aws/services/sqs/test_sqs.py"
MODES = ("inprocess", "json", "query")
REGION = "us-east-1"  # LocalStack's TEST_AWS_REGION_NAME
# Not LocalStack's 000000000000: sqsmock's SenderId is the account, and the snapshot's SenderId
# reference transformer would then rewrite the zeros inside FIFO sequence numbers.
ACCOUNT = "123456789012"
PUBLIC_URL = "http://localhost.localstack.cloud:4566"
#: Where the tests send raw HTTP: AWS's endpoints (their AWS branch) and LocalStack's queue URLs.
AWS_HOST = re.compile(
    r"^(https://[a-z0-9.-]*amazonaws\.com|http://[a-z0-9.-]*localhost\.localstack\.cloud:4566)"
)
MAX_NUMBER_OF_MESSAGES = 10  # what SQS allows per receive (LocalStack's provider constant)
#: What botocore's query parser gives an error that its JSON parser does not, and the reverse:
#: ``Error.Detail`` (query), ``Error.QueryErrorCode`` and the top-level ``message`` (JSON).
PROTOCOL_SHAPE = ("$..Error.Detail", "$..Error.QueryErrorCode", "$..message")

DIFFERS = "sqsmock differs from AWS: "
HARNESS = "harness limitation: "
NOT_APPLICABLE = "not applicable: "
_NOTHING_RECORDED = (
    NOT_APPLICABLE + "LocalStack skips this test and holds no recording of AWS's answer "
    "(test_sqs.snapshot.json has no state for it): nothing to compare against"
)
_STRATEGY = (
    NOT_APPLICABLE + "checks LocalStack's SQS_ENDPOINT_STRATEGY={} (set in LocalStack's config); "
    "no AWS run of it is recorded in test_sqs.validation.json"
)
_QUERY_MODEL = (
    HARNESS + "the query-protocol client sends MessageSystemAttributeNames and AttributeNames "
    "both as AttributeName.N (as LocalStack's query model, the one the recordings were made "
    "with, does); the [sqs] recording is a JSON client's answer to the two lists"
)

# Failures and skips explained: "Class::test_name" (every parametrization, every mode),
# optionally "[param]" for one parametrization, optionally prefixed "mode:" for one mode.
# Measured figures: compat/README.md.
KNOWN: dict[str, str] = {
    "TestSqsProvider::test_fifo_delete_message_with_expired_receipt_handle": _NOTHING_RECORDED,
    "TestSqsProvider::test_invalid_dead_letter_arn_rejected_before_lookup": _NOTHING_RECORDED,
    "TestSqsProvider::test_list_queues_multi_region_with_endpoint_strategy_domain": (
        _STRATEGY.format("domain")
    ),
    "TestSqsQueryApi::test_endpoint_strategy_with_multi_region[off]": _STRATEGY.format("off"),
    "inprocess:TestSqsProvider::test_aws_trace_header_propagation[sqs]": (
        DIFFERS + "no AWSTraceHeader from the X-Amzn-Trace-Id header a before-send handler "
        "adds: in process, sqsmock answers at before-call, before such handlers run; over HTTP "
        "the test passes"
    ),
    "query:TestSqsProvider::test_message_system_attribute_names_with_attribute_names[sqs]": (
        _QUERY_MODEL
    ),
    "query:TestSqsProvider::test_non_existent_queue": (
        HARNESS + "recorded with a JSON client; in the query protocol AWS words it 'The "
        "specified queue does not exist for this wsdl version.' (AWS-recorded, docs/wire.md), "
        "as sqsmock does"
    ),
    "query:TestSqsQueryApi::test_send_message_via_queue_url_with_json_protocol": (
        NOT_APPLICABLE + "checks a JSON-protocol answer; the query mode's client speaks the "
        "query protocol"
    ),
}


def reason_for(mode: str, nodeid: str) -> tuple[str, str] | None:
    """The ``KNOWN`` entry (key, reason) explaining this test's outcome in this mode, if any."""
    name = nodeid.split("::", 1)[1] if "::" in nodeid else nodeid
    base = name.split("[", 1)[0]
    for key in (f"{mode}:{name}", f"{mode}:{base}", name, base):
        if key in KNOWN:
            return key, KNOWN[key]
    return None


# -- stand-ins for the LocalStack modules the test module imports --------------------------------


def install_stand_ins(checkout: Path) -> None:
    """Put the checkout's ``localstack-core`` and test tree on the path, and stand in for the
    modules that need LocalStack's runtime (or a newer Python) but that the AWS-validated tests
    use only for a constant or a LocalStack-only branch."""
    sys.path[:0] = [str(checkout / "localstack-core"), str(checkout)]

    def module(name: str, **attributes: Any) -> None:
        mod = types.ModuleType(name)
        mod.__dict__.update(attributes)
        sys.modules[name] = mod

    # Written by setuptools-scm at install time; a checkout has none.
    module("localstack.version", __version__="0.0.0+checkout", version="0.0.0+checkout")

    def no_store(*_: Any, **__: Any) -> Any:
        pytest.skip(NOT_APPLICABLE + "reads LocalStack's in-memory SQS store")

    module("localstack.services.sqs.models", sqs_stores=_Raiser(no_store))
    module("localstack.services.sqs.provider", MAX_NUMBER_OF_MESSAGES=MAX_NUMBER_OF_MESSAGES)
    module("localstack.testing.aws.util", is_aws_cloud=lambda: True)
    module(
        "tests.aws.services.lambda_.test_lambda",
        TEST_LAMBDA_PYTHON=str(checkout / "tests/aws/services/lambda_/functions/lambda_echo.py"),
    )


class _Raiser:
    def __init__(self, action: Any) -> None:
        self._action = action

    def __getitem__(self, key: Any) -> Any:
        return self._action()


# -- clients -------------------------------------------------------------------------------------


def query_data_path() -> str:
    """A botocore data directory holding the query-protocol SQS model (as clients before botocore
    1.34.90 had it): a client built from it speaks the query protocol.

    That model predates ``ReceiveMessage``'s ``MessageSystemAttributeNames``. It is added as
    LocalStack's own query model (the one its recordings were made with) adds it: with the shape
    of ``AttributeNames``, so that it, too, is sent as ``AttributeName.N``. The requests are then
    the ones AWS answered when the snapshots were recorded."""
    model = json.loads(gzip.decompress(QUERY_MODEL.read_bytes()))
    members = model["shapes"]["ReceiveMessageRequest"]["members"]
    members.setdefault("MessageSystemAttributeNames", {"shape": "AttributeNameList"})
    root = Path(tempfile.mkdtemp(prefix="sqsmock-query-model-"))
    target = root / "sqs" / "2012-11-05"
    target.mkdir(parents=True)
    (target / "service-2.json").write_text(json.dumps(model))
    return str(root)


class Clients:
    """``aws_client``: ``.sqs`` and ``.sqs_query``; any other service skips the test."""

    def __init__(self, shim: Shim, **options: Any) -> None:
        self._shim = shim
        self._options = options
        self._made: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self._made:
            if name == "sqs":
                self._made[name] = self._shim.client(
                    query=self._shim.mode == "query", **self._options
                )
            elif name == "sqs_query":
                if self._shim.mode == "inprocess":
                    pytest.skip(
                        HARNESS + "in-process clients speak JSON; the query protocol is "
                        "measured over serve()"
                    )
                self._made[name] = self._shim.client(query=True, **self._options)
            else:
                pytest.skip(NOT_APPLICABLE + f"needs the {name.rstrip('_')} service")
        return self._made[name]


class _Time:
    """The test module's ``time``: ``sleep`` advances sqsmock's clock instead of waiting."""

    def __init__(self, shim: Shim) -> None:
        import time

        self._time = time
        self._shim = shim

    def sleep(self, seconds: float) -> None:
        handle = self._shim.handle
        if handle is None:
            self._time.sleep(seconds)
        else:
            handle.clock.advance(seconds)

    def time(self) -> float:
        handle = self._shim.handle
        return self._time.time() if handle is None else float(handle.clock.now())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._time, name)


# -- the shim ------------------------------------------------------------------------------------


class Shim:
    def __init__(self, mode: str, checkout: Path) -> None:
        self.mode = mode
        self.checkout = checkout
        self.handle: Any = None
        self.server: Any = None
        self.data_path = query_data_path()
        self.results: dict[str, dict[str, str]] = {}
        self.not_validated = 0
        self.unskipped: dict[str, str] = {}

    # clients

    def client(self, *, query: bool = False, **options: Any) -> Any:
        import botocore.config
        import botocore.session

        session = botocore.session.get_session()
        if query:
            session.get_component("data_loader").search_paths.insert(0, self.data_path)
        kwargs: dict[str, Any] = {
            "region_name": options.pop("region_name", REGION),
            "aws_access_key_id": options.pop("aws_access_key_id", "test"),
            "aws_secret_access_key": options.pop("aws_secret_access_key", "test"),
            "config": options.pop("config", None)
            or botocore.config.Config(retries={"max_attempts": 1}),
        }
        options.pop("endpoint_url", None)
        if self.server is not None:
            kwargs["endpoint_url"] = self.server.endpoint_url
        return session.create_client("sqs", **kwargs, **options)

    # pytest hooks

    def pytest_configure(self, config: Any) -> None:
        for name in (
            "aws_validated",
            "aws_only_localstack",
            "aws_needs_fixing",
            "aws_manual_setup_required",
            "aws_unknown",
            "only_localstack",
            "requires_in_process",
            "requires_docker",
            "requires_in_container",
            "skip_offline",
            "multiruntime",
            "snapshot_validated",
            "lambda_runtime_update",
            "resource_heavy",
            "skip_k8s",
            "acceptance_test",
            "only_on_amd64",
            "only_on_arm64",
        ):
            config.addinivalue_line("markers", name)

    def pytest_sessionstart(self, session: Any) -> None:
        if self.mode != "inprocess":
            import sqsmock

            # LocalStack's queue URL form (its "standard" strategy, port 4566): the recorded
            # snapshots hold AWS's URLs rewritten to that form by the tests' transformers.
            self.server = sqsmock.serve(
                port=0,
                region=REGION,
                account_id=ACCOUNT,
                localstack=True,
                endpoint_strategy="standard",
                public_url=PUBLIC_URL,
            ).start()
            self.handle = self.server

    def pytest_sessionfinish(self, session: Any) -> None:
        if self.server is not None:
            self.server.stop()

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, config: Any, items: list[Any]) -> None:
        keep, drop = [], []
        for item in items:
            (keep if item.get_closest_marker("aws_validated") else drop).append(item)
        self.not_validated = len(drop)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
        for item in keep:
            # LocalStack skips some AWS-validated tests because LocalStack fails them; they run
            # here (the skip reason is kept for the report).
            skips = [m for m in item.own_markers if m.name == "skip"]
            if skips:
                item.own_markers[:] = [m for m in item.own_markers if m.name != "skip"]
                self.unskipped[item.nodeid] = str(
                    skips[0].kwargs.get("reason") or (skips[0].args or [""])[0]
                )
            # LocalStack's own exemptions from snapshot verification are its parity gaps, not
            # sqsmock's: every recorded path is verified...
            item.own_markers[:] = [m for m in item.own_markers if m.name != "skip_snapshot_verify"]
            # ...except, in the query mode, the parts of an error that botocore's query parser
            # shapes differently from its JSON parser: most recordings are a JSON client's.
            if self.mode == "query":
                item.add_marker(pytest.mark.skip_snapshot_verify(paths=list(PROTOCOL_SHAPE)))
            module = item.module
            if not isinstance(module.__dict__.get("time"), _Time):
                module.time = _Time(self)

    @pytest.fixture(autouse=True)
    def _sqsmock(self) -> Any:
        if self.mode == "inprocess":
            import sqsmock

            with sqsmock.mock_sqs(region=REGION, account_id=ACCOUNT) as handle:
                self.handle = handle
                yield handle
            self.handle = None
        else:
            self.server.reset()
            yield self.server

    def pytest_runtest_logreport(self, report: Any) -> None:
        entry = self.results.setdefault(report.nodeid, {"outcome": "passed", "message": ""})
        if report.failed and entry["outcome"] != "failed":
            entry["outcome"] = "failed"
            entry["message"] = _first_line(report)
        elif report.skipped and entry["outcome"] == "passed":
            entry["outcome"] = "skipped"
            entry["message"] = _skip_reason(report)

    # fixtures

    @pytest.fixture
    def aws_client(self, _sqsmock: Any) -> Clients:
        return Clients(self)

    @pytest.fixture
    def aws_client_factory(self, _sqsmock: Any) -> Any:
        return lambda **options: Clients(self, **options)

    @pytest.fixture
    def secondary_aws_client(self, _sqsmock: Any) -> Any:
        pytest.skip(NOT_APPLICABLE + "a second account: sqsmock maps no credentials to accounts")

    @pytest.fixture
    def secondary_account_id(self) -> str:
        pytest.skip(NOT_APPLICABLE + "a second account: sqsmock maps no credentials to accounts")

    @pytest.fixture
    def account_id(self) -> str:
        return ACCOUNT

    @pytest.fixture
    def region_name(self) -> str:
        return REGION

    @pytest.fixture
    def cleanups(self) -> Any:
        callbacks: list[Any] = []
        yield callbacks
        for callback in reversed(callbacks):
            with contextlib.suppress(Exception):  # best effort, as LocalStack's cleanup is
                callback()

    @pytest.fixture
    def sqs_create_queue(self, aws_client: Clients) -> Any:
        from localstack.utils.strings import short_uid

        def factory(**kwargs: Any) -> str:
            kwargs.setdefault("QueueName", f"test-queue-{short_uid()}")
            return str(aws_client.sqs.create_queue(**kwargs)["QueueUrl"])

        return factory

    @pytest.fixture
    def sqs_queue(self, sqs_create_queue: Any) -> str:
        return str(sqs_create_queue())

    @pytest.fixture
    def sqs_get_queue_arn(self, aws_client: Clients) -> Any:
        def arn(queue_url: str) -> str:
            answer = aws_client.sqs.get_queue_attributes(
                QueueUrl=queue_url, AttributeNames=["QueueArn"]
            )
            return str(answer["Attributes"]["QueueArn"])

        return arn

    @pytest.fixture
    def sqs_queue_exists(self, aws_client: Clients) -> Any:
        from botocore.exceptions import ClientError

        def exists(queue_url: str) -> bool:
            try:
                answer = aws_client.sqs.get_queue_url(QueueName=queue_url.split("/")[-1])
            except ClientError as error:
                if "NonExistentQueue" in error.response["Error"]["Code"]:
                    return False
                raise
            return bool(answer.get("QueueUrl") == queue_url)

        return exists

    @pytest.fixture
    def sqs_collect_messages(self, aws_client: Clients) -> Any:
        from localstack.utils.sync import poll_condition

        def collect(
            queue_url: str,
            expected: int,
            timeout: int,
            delete: bool = True,
            attribute_names: list[str] | None = None,
            message_attribute_names: list[str] | None = None,
            max_number_of_messages: int = 1,
            wait_time_seconds: int = 5,
            sqs_client: Any = None,
        ) -> list[Any]:
            client = sqs_client or aws_client.sqs
            collected: list[Any] = []

            def receive() -> bool:
                answer = client.receive_message(
                    QueueUrl=queue_url,
                    WaitTimeSeconds=wait_time_seconds,
                    MaxNumberOfMessages=max_number_of_messages,
                    AttributeNames=attribute_names or [],
                    MessageAttributeNames=message_attribute_names or [],
                )
                for message in answer.get("Messages", []):
                    collected.append(message)
                    if delete:
                        client.delete_message(
                            QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"]
                        )
                return len(collected) >= expected

            if not poll_condition(receive, timeout=timeout):
                raise TimeoutError(f"expected {expected} messages, got {len(collected)}")
            return collected

        return collect

    @pytest.fixture
    def aws_http_client_factory(self, _sqsmock: Any) -> Any:
        import botocore.auth
        import botocore.credentials
        from localstack.utils.aws.client import SigningHttpClient

        if self.server is None:
            pytest.skip(HARNESS + "raw HTTP needs a server; measured in the json and query modes")
        endpoint = self.server.endpoint_url

        class ToServer(SigningHttpClient):  # type: ignore[misc]
            def request(self, method: str, url: str, **kwargs: Any) -> Any:
                # The tests' AWS branch names AWS's endpoint: send it to the server instead.
                url = AWS_HOST.sub(endpoint, url)
                return super().request(method, url, **kwargs)

        def factory(
            service: str,
            region: str | None = None,
            signer_factory: Any = botocore.auth.SigV4QueryAuth,
            endpoint_url: str | None = None,
            aws_access_key_id: str | None = None,
            aws_secret_access_key: str | None = None,
        ) -> Any:
            credentials = botocore.credentials.Credentials(
                aws_access_key_id or "test", aws_secret_access_key or "test"
            )
            signer = signer_factory(credentials, service, region or REGION)
            return ToServer(signer, endpoint_url=endpoint_url or endpoint)

        return factory

    @pytest.fixture
    def create_lambda_function(self) -> Any:
        pytest.skip(NOT_APPLICABLE + "needs the lambda service")

    @pytest.fixture
    def snapshot(
        self, request: Any, _snapshot_session: Any, account_id: str, region_name: str
    ) -> Any:
        """LocalStack's conftest ``snapshot`` fixture, as its SQS tests get it."""
        from localstack.testing.snapshots.transformer_utility import (
            SNAPSHOT_BASIC_TRANSFORMER,
            TransformerUtility,
        )
        from localstack.utils.aws.arns import get_partition
        from localstack_snapshot.snapshots.transformer import RegexTransformer

        session = _snapshot_session
        session.transform = TransformerUtility
        session.add_transformer(RegexTransformer(account_id, "1" * 12), priority=2)
        session.add_transformer(RegexTransformer(region_name, "<region>"), priority=2)
        session.add_transformer(
            RegexTransformer(f"arn:{get_partition(region_name)}:", "arn:<partition>:"), priority=2
        )
        session.add_transformer(session.transform.remove_key("x-localstack"))
        # tests/aws/services/sqs is one of the directories LocalStack keeps on the older set.
        session.add_transformer(SNAPSHOT_BASIC_TRANSFORMER, priority=2)
        return session


def _first_line(report: Any) -> str:
    text = str(report.longrepr or "")
    crash = getattr(getattr(report.longrepr, "reprcrash", None), "message", None)
    if crash:
        text = str(crash)
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line[:300]
    return ""


def _skip_reason(report: Any) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


# -- running -------------------------------------------------------------------------------------


def run_mode(mode: str, checkout: Path, out: Path, pytest_args: list[str]) -> int:
    """In this process: run the suite in one mode, write the outcomes as JSON to ``out``."""
    install_stand_ins(checkout)
    shim = Shim(mode, checkout)
    import localstack_snapshot.pytest.snapshot as snapshot_plugin

    ini = Path(tempfile.mkdtemp(prefix="sqsmock-ls-")) / "pytest.ini"
    ini.write_text("[pytest]\n")
    args = [
        "-c",
        str(ini),
        "--rootdir",
        str(checkout),
        "--noconftest",
        "-p",
        "no:cacheprovider",
        "-q",
        "--no-header",
        "-rN",
        "-W",
        "ignore::DeprecationWarning",
        *pytest_args,
        str(checkout / TEST_FILE),
    ]
    cwd = Path.cwd()
    os.chdir(checkout)
    try:
        # localstack-snapshot's plugin first: the shim's ``snapshot`` fixture overrides its own.
        status = pytest.main(args, plugins=[snapshot_plugin, shim])
    finally:
        os.chdir(cwd)
    out.write_text(
        json.dumps(
            {
                "results": shim.results,
                "not_validated": shim.not_validated,
                "unskipped": shim.unskipped,
            }
        )
    )
    return int(status)


class Summary:
    """One mode's outcomes, with every failure and skip explained (or flagged as unexplained)."""

    def __init__(self, mode: str, data: dict[str, Any], recorded: set[str]) -> None:
        self.mode = mode
        self.counts = {"passed": 0, "failed": 0, "skipped": 0}
        self.not_validated = int(data["not_validated"])
        self.lines: list[str] = []
        self.used: set[str] = set()
        self.unexplained = 0
        unskipped: dict[str, str] = data["unskipped"]
        self.passing_localstack_skips = 0
        self.passing_recorded = 0
        for nodeid, entry in sorted(data["results"].items()):
            outcome = entry["outcome"]
            self.counts[outcome] += 1
            if outcome == "passed":
                self.passing_localstack_skips += nodeid in unskipped
                self.passing_recorded += nodeid in recorded
                continue
            short = nodeid.split("::", 1)[1]
            known = reason_for(mode, nodeid)
            if outcome == "skipped":  # the shim's skips say why themselves
                reason = entry["message"]
            elif known is not None:
                self.used.add(known[0])
                reason = known[1]
            else:
                self.unexplained += 1
                reason = "UNEXPLAINED: " + entry["message"]
            self.lines.append(f"  {outcome:7} {short}: {reason}")

    def headline(self) -> str:
        c = self.counts
        return (
            f"{self.mode}: {c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped "
            f"({self.passing_recorded} of the passes have an AWS run recorded in "
            f"test_sqs.validation.json, {self.passing_localstack_skips} are tests LocalStack "
            f"skips; {self.not_validated} tests not validated against AWS not run)"
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", default=os.environ.get("LOCALSTACK_CHECKOUT"))
    parser.add_argument("--mode", action="append", choices=MODES, help="default: all three")
    parser.add_argument("--run-mode", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--keep", metavar="DIR", help="keep each mode's outcomes in DIR")
    parser.add_argument(
        "--from",
        dest="from_dir",
        metavar="DIR",
        help="report the outcomes kept in DIR, run nothing",
    )
    parser.add_argument("pytest_args", nargs="*", help="after --: extra pytest arguments")
    args = parser.parse_args(argv)
    if not args.checkout:
        raise SystemExit("localstack_suite: give --checkout PATH or set LOCALSTACK_CHECKOUT")
    checkout = Path(args.checkout).resolve()
    if not (checkout / TEST_FILE).is_file():
        raise SystemExit(f"localstack_suite: {checkout / TEST_FILE} does not exist")
    if args.run_mode:
        return run_mode(args.run_mode, checkout, Path(args.out), args.pytest_args)

    status = 0
    validation = checkout / TEST_FILE.replace(".py", ".validation.json")
    recorded = set(json.loads(validation.read_text())) if validation.is_file() else set()
    summaries: list[Summary] = []
    keep = Path(args.from_dir or args.keep or tempfile.mkdtemp(prefix="sqsmock-ls-"))
    keep.mkdir(parents=True, exist_ok=True)
    for mode in args.mode or MODES:
        out = keep / f"{mode}.json"
        if not args.from_dir:
            command = [sys.executable, __file__, "--checkout", str(checkout), "--run-mode", mode]
            subprocess.run([*command, "--out", str(out), "--", *args.pytest_args], check=False)
        if not out.exists():
            print(f"localstack_suite: the {mode} run wrote no results")
            status = 2
            continue
        summaries.append(Summary(mode, json.loads(out.read_text()), recorded))
    print(f"\nLocalStack {_commit(checkout)}: {TEST_FILE}, AWS-validated tests, on sqsmock")
    for summary in summaries:
        print(summary.headline())
        print("\n".join(summary.lines))
    if any(s.unexplained for s in summaries):
        status = status or 1
    used = set().union(*(s.used for s in summaries)) if summaries else set()
    stale = sorted(set(KNOWN) - used)
    if stale and not args.pytest_args and not args.mode:
        print("localstack_suite: KNOWN entries that explain nothing: " + ", ".join(stale))
        status = status or 3
    return status


def _commit(checkout: Path) -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "(commit unknown)"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
