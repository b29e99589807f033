"""``sqsmock serve`` takes every flag from an ``SQSMOCK_*`` variable too, as a container is
configured (compose's ``environment:``, Testcontainers' ``withEnv``); a flag on the command line
wins over its variable."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from sqsmock import _serving
from sqsmock._server_options import ServerOptions
from sqsmock.cli import environment_variable, main, parse_arguments, parser


def options(*argv: str, **environ: str) -> ServerOptions:
    return _serving._command_line_options(parse_arguments(["serve", *argv], environ))


def serve_parser() -> argparse.ArgumentParser:
    top = parser()
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    found: argparse.ArgumentParser = sub.choices["serve"]
    return found


def test_every_serve_flag_has_a_variable_named_after_it():
    flags = {
        option.metadata["cli"]["flag"]
        for option in dataclasses.fields(ServerOptions)
        if "cli" in option.metadata
    }
    variables = {
        environment_variable(action)
        for action in serve_parser()._actions
        if action.option_strings and action.dest != "help"
    }
    expected = {"SQSMOCK_" + flag[2:].upper().replace("-", "_") for flag in flags}
    assert expected | {"SQSMOCK_LOG_LEVEL"} == variables
    assert {"SQSMOCK_PORT", "SQSMOCK_REGION", "SQSMOCK_ALLOW_HOST"} <= variables
    assert "SQSMOCK_ALLOW_HOST" in serve_parser().format_help().replace("\n", " ")


def test_variables_set_the_options():
    got = options(
        SQSMOCK_PORT="9400",
        SQSMOCK_REGION="eu-west-1",
        SQSMOCK_ALLOW_HOST="sqs, sqs.internal",
        SQSMOCK_CLOCK="frozen",
        SQSMOCK_JOURNAL_LIMIT="7",
        SQSMOCK_PERSISTENCE_TIMEOUT="2.5",
    )
    assert (got.port, got.region, got.allow_hosts) == (9400, "eu-west-1", ("sqs", "sqs.internal"))
    assert (got.journal_limit, got.persistence_timeout) == (7, 2.5)
    assert got.clock is not None and got.clock != "wall"


def test_a_flag_wins_over_its_variable():
    got = options(
        "--port",
        "9500",
        "--allow-host",
        "queue",
        "--clock",
        "wall",
        SQSMOCK_PORT="9400",
        SQSMOCK_ALLOW_HOST="sqs,other",
        SQSMOCK_CLOCK="frozen",
    )
    assert (got.port, got.allow_hosts, got.clock) == (9500, ("queue",), "wall")


def test_localstack_mode_from_its_variable_takes_its_port():
    got = options(SQSMOCK_LOCALSTACK="true")
    assert got.localstack and got.port == 4566 and got.account_id == "000000000000"
    assert not options(SQSMOCK_LOCALSTACK="0").localstack
    assert options("--port", "9324", SQSMOCK_LOCALSTACK="1").port == 9324


def test_the_log_level_has_a_variable_too():
    args = parse_arguments(["serve"], {"SQSMOCK_LOG_LEVEL": "debug"})
    assert args.log_level == "debug"
    args = parse_arguments(["serve", "--log-level", "info"], {"SQSMOCK_LOG_LEVEL": "debug"})
    assert args.log_level == "info"


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("SQSMOCK_PORT", "http", "SQSMOCK_PORT must be an integer, not 'http'"),
        ("SQSMOCK_LOCALSTACK", "maybe", "SQSMOCK_LOCALSTACK must be one of 1, true"),
        ("SQSMOCK_CLOCK", "slow", "SQSMOCK_CLOCK must be one of wall, frozen, not 'slow'"),
        ("SQSMOCK_PERSISTENCE_TIMEOUT", "soon", "SQSMOCK_PERSISTENCE_TIMEOUT must be a number"),
    ],
)
def test_a_malformed_variable_ends_serve_with_one_line(monkeypatch, capsys, name, value, said):
    monkeypatch.setenv(name, value)
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sqsmock: " + said) and err.count("\n") == 1


def test_other_commands_ignore_serves_variables():
    args = parse_arguments(
        ["inspect", "--persistence", "redis://127.0.0.1:6379/0"], {"SQSMOCK_PORT": "http"}
    )
    assert args.command == "inspect"


def test_a_variable_wins_over_the_config_files_server_settings(tmp_path):
    pytest.importorskip("pyhocon")
    conf = tmp_path / "elasticmq.conf"
    conf.write_text("rest-sqs { bind-port = 9999, bind-hostname = 127.0.0.2 }\n")
    got = options("--config", str(conf), SQSMOCK_PORT="9400")
    assert (got.port, got.host) == (9400, "127.0.0.2")
    got = options(SQSMOCK_CONFIG=str(conf))
    assert (got.port, got.host) == (9999, "127.0.0.2")


def test_the_container_docs_list_every_variable():
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "container.md").read_text()
    for action in serve_parser()._actions:
        if action.option_strings and action.dest != "help":
            assert f"| `{environment_variable(action)}` |" in text
