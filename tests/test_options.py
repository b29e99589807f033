"""The options are named once (``MockOptions``, ``ServerOptions``) and every front end -- keyword
arguments, ``sqsmock serve``'s flags, the pytest marker -- parses into the same dataclass, with
the same defaults and the same checks."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
from pathlib import Path

import pytest

import sqsmock
from sqsmock import _mock, _serving
from sqsmock._mock import MockSQS
from sqsmock._options import MockOptions, StateOptions, about, add_arguments, from_arguments
from sqsmock._runtime import Runtime
from sqsmock._server_options import ServerOptions


def serve_args(*argv: str) -> argparse.Namespace:
    """``sqsmock serve``'s arguments, parsed as the command parses them."""
    from sqsmock.cli import parser

    return parser().parse_args(["serve", *argv])


def command_line_options(*argv: str) -> ServerOptions:
    return _serving._command_line_options(serve_args(*argv))


def typed_keywords(source_file: str, function: str) -> list[str]:
    """The keyword-only parameters of ``function``'s typed ``@overload`` in ``source_file``."""
    tree = ast.parse(Path(source_file).read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            names = [arg.arg for arg in node.args.kwonlyargs]
            if names:
                return names
    raise AssertionError(f"no typed overload of {function} in {source_file}")


def test_the_typed_signature_of_mock_sqs_names_exactly_the_options():
    assert typed_keywords(_mock.__file__, "mock_sqs") == list(MockOptions.names())


def test_every_option_has_a_one_line_doc_in_the_front_ends_docstrings():
    for options, front_end in ((MockOptions, sqsmock.mock_sqs), (ServerOptions, sqsmock.serve)):
        for option in dataclasses.fields(options):
            if not option.init:
                continue
            doc = option.metadata["doc"]
            assert doc and "\n" not in doc
            assert f"- ``{option.name}``: {doc}" in inspect.getdoc(front_end)


def test_the_mock_and_the_server_share_the_state_options_in_one_order():
    shared = StateOptions.names()
    assert MockOptions.names()[: len(shared)] == shared
    assert ServerOptions.names()[: len(shared)] == shared
    assert "allow_aws" not in ServerOptions.names()  # a server intercepts no botocore client


def test_a_mock_built_from_keywords_and_one_built_from_options_are_the_same():
    keywords = {"region": "eu-west-1", "account_id": "111122223333", "journal_limit": 7}
    by_keywords = sqsmock.mock_sqs(**keywords)
    by_options = MockSQS(MockOptions(**keywords))
    assert by_keywords.options == by_options.options
    assert by_options.region == "eu-west-1"
    assert by_options.journal_limit == 7
    with pytest.raises(TypeError, match="not both"):
        MockSQS(MockOptions(), region="eu-west-1")


def test_defaults_are_filled_in_once_for_every_front_end(monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    mock = MockOptions()
    assert (mock.region, mock.account_id, mock.namespace) == (
        "us-east-1",
        "123456789012",
        "sqsmock:",
    )
    assert mock.allow_aws is False
    assert mock.persistence_timeout == 5.0
    server = ServerOptions()
    assert (server.host, server.port, server.account_id) == ("127.0.0.1", 9324, "123456789012")
    # The command line with no flags means the same server as serve() with no options.
    assert command_line_options() == server
    assert sqsmock.serve().options == server


def test_options_are_frozen():
    options = MockOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.region = "eu-west-1"  # type: ignore[misc]


def test_serve_names_an_unknown_option_and_what_it_meant():
    with pytest.raises(TypeError) as exc:
        sqsmock.serve(prot=0)
    message = str(exc.value)
    assert message.startswith("serve() got unexpected option 'prot' (did you mean 'port'?)")
    assert message.endswith(f"its options are {', '.join(ServerOptions.names())}")


@pytest.mark.parametrize(
    ("keywords", "says"),
    [
        ({"account_id": "12"}, "account_id must be a 12-digit string"),
        ({"port": 70000}, "port must be an integer from 0 to 65535"),
        ({"clock": "sundial"}, "clock must be 'wall', 'frozen'"),
        ({"journal_limit": -1}, "journal_limit"),
        ({"persistence_timeout": 0}, "persistence_timeout must be a positive number"),
        ({"allow_hosts": "sqs"}, "allow_hosts must be a list of strings"),
        ({"endpoint_strategy": "path"}, "endpoint_strategy and init_dir are LocalStack mode's"),
    ],
)
def test_the_server_checks_its_options_when_built(keywords, says):
    with pytest.raises(ValueError, match=says):
        ServerOptions(**keywords)
    with pytest.raises(ValueError, match=says):
        sqsmock.serve(**keywords)


def test_flags_give_the_same_options_as_keywords():
    argv = [
        "--region", "eu-west-1", "--account-id", "111122223333", "--clock", "frozen",
        "--namespace", "app:", "--persistence-timeout", "2.5", "--journal-limit", "3",
        "--journal-byte-limit", "4096", "--host", "0.0.0.0", "--port", "0",
        "--allow-host", "sqs", "--allow-host", ".example.com", "--cors-origin",
        "http://localhost:3000", "--public-url", "http://sqs:9324",
    ]  # fmt: skip
    assert command_line_options(*argv) == ServerOptions(
        region="eu-west-1",
        account_id="111122223333",
        clock="frozen",
        namespace="app:",
        persistence_timeout=2.5,
        journal_limit=3,
        journal_byte_limit=4096,
        host="0.0.0.0",
        port=0,
        allow_hosts=["sqs", ".example.com"],
        cors_origins=["http://localhost:3000"],
        public_url="http://sqs:9324",
    )


ELASTICMQ_CONF = """
rest-sqs {
  enabled = true
  bind-port = 9400
  bind-hostname = "0.0.0.0"
}
aws {
  region = eu-west-2
  accountId = 000011112222
}
"""


def test_the_config_file_fills_in_what_the_flags_left_out(tmp_path):
    conf = tmp_path / "elasticmq.conf"
    conf.write_text(ELASTICMQ_CONF)
    from_file = command_line_options("--config", str(conf))
    assert (from_file.host, from_file.port) == ("0.0.0.0", 9400)
    assert (from_file.region, from_file.account_id) == ("eu-west-2", "000011112222")
    flags_first = command_line_options(
        "--config", str(conf), "--port", "0", "--region", "us-west-1"
    )
    assert (flags_first.port, flags_first.region) == (0, "us-west-1")
    assert flags_first.account_id == "000011112222"


def test_localstack_mode_comes_before_the_config_file_for_port_and_account(tmp_path, monkeypatch):
    for name in ("SQS_ENDPOINT_STRATEGY", "LOCALSTACK_HOST"):
        monkeypatch.delenv(name, raising=False)
    conf = tmp_path / "elasticmq.conf"
    conf.write_text(ELASTICMQ_CONF)
    options = command_line_options("--localstack", "--config", str(conf))
    assert (options.port, options.account_id) == (4566, "000000000000")
    assert (options.host, options.region) == ("0.0.0.0", "eu-west-2")
    assert options.localstack_mode is not None
    assert options.localstack_mode.strategy == "standard"
    assert ".localhost.localstack.cloud" in options.allow_hosts
    # serve() keeps its own port in LocalStack mode: only the command line moves it to 4566.
    assert ServerOptions(localstack=True).port == 9324
    assert ServerOptions(localstack=True, account_id="111122223333").account_id == "111122223333"


def test_a_new_option_is_a_field_and_every_parser_takes_it():
    """What adding an option takes: a field with its doc and flag; the keyword parser, the
    flags and the docs follow from it."""

    @dataclasses.dataclass(frozen=True, kw_only=True)
    class Extended(ServerOptions):
        greeting: str = dataclasses.field(
            default="hello",
            metadata=about("what to say", flag="--greeting", default=None, help="say it"),
        )

    parser = argparse.ArgumentParser()
    add_arguments(parser, Extended)
    assert "--greeting" in parser.format_help()
    assert from_arguments(parser.parse_args(["--greeting", "hi"]), Extended)["greeting"] == "hi"
    assert "greeting" not in from_arguments(parser.parse_args([]), Extended)  # default applies
    assert Extended.from_keywords({"greeting": "hey"}, "serve").greeting == "hey"
    with pytest.raises(TypeError, match="did you mean 'greeting'"):
        Extended.from_keywords({"greting": "hey"}, "serve")


def test_the_runtime_is_built_from_the_options():
    runtime = Runtime(MockOptions(region="eu-west-1", journal_limit=2, journal_byte_limit=1000))
    try:
        assert (runtime.region, runtime.account) == ("eu-west-1", "123456789012")
        assert (runtime.journal.limit, runtime.journal.byte_limit) == (2, 1000)
        assert runtime.chaos.default is None
    finally:
        runtime.close()


@pytest.mark.slow
def test_the_marker_parses_into_the_mock_options(pytester: pytest.Pytester):
    pytester.makepyfile(
        test_marked="""
        import pytest
        from sqsmock._options import MockOptions

        @pytest.mark.sqsmock(region="eu-west-1", journal_limit=3)
        def test_options(sqs_mock):
            assert isinstance(sqs_mock.options, MockOptions)
            assert sqs_mock.options.region == "eu-west-1"
            assert sqs_mock.runtime.journal.limit == 3

        @pytest.mark.sqsmock(regoin="eu-west-1")
        def test_misspelt(sqs_mock):
            pass
        """
    )
    # in a process of its own: an in-process run takes the modules it first imported out of
    # sys.modules afterwards, leaving adapters installed by copies the rest of the suite lacks
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["*mock_sqs() got unexpected option 'regoin'*did you mean 'region'*"]
    )
