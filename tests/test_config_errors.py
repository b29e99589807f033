"""A config file that cannot be applied ends ``sqsmock serve`` with one line naming the file, the
queue and the setting (exit status 2), whatever the mistake; and ElasticMQ's includes are read
next to the including file, as ElasticMQ reads them, never in the working directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqsmock import ConfigError, _declare, _elasticmq, _serving, mock_sqs
from sqsmock._config import load
from sqsmock.cli import main

pytest.importorskip("pyhocon")

#: File name, text, and what the one line says (beyond the file's name).
BAD = {
    "a TOML date in a policy table": (
        "queues.toml",
        "[queues.q]\nattributes = { Policy = { Version = 2012-10-17 } }\n",
        ["queue 'q'", "attribute 'Policy'", "2012-10-17", "string"],
    ),
    "a TOML time deep in a policy": (
        "queues.toml",
        "[queues.q]\n"
        'attributes = { Policy = { Statement = [{ Condition = { "x" = [07:32:00] } }] } }\n',
        ["queue 'q'", "attribute 'Policy'", "07:32:00"],
    ),
    "inf in a TOML policy": (
        "queues.toml",
        "[queues.d]\n[queues.q]\nattributes = { RedrivePolicy = "
        '{ deadLetterTargetArn = "d", maxReceiveCount = inf } }\n',
        ["queue 'q'", "attribute 'RedrivePolicy'", "inf"],
    ),
    "a TOML array nested 3,000 deep": (
        "queues.toml",
        "[queues.q]\nattributes = { DelaySeconds = " + "[" * 3000 + "]" * 3000 + " }\n",
        ["not valid TOML", "nested too deeply"],
    ),
    "a HOCON delay of 1e400": (
        "elasticmq.conf",
        "queues { q { delay = 1e400 } }\n",
        ["queue 'q'", "delay", "not a duration"],
    ),
    "a HOCON delay of 400 digits, quoted": (
        "elasticmq.conf",
        'queues { q { delay = "' + "9" * 400 + ' seconds" } }\n',
        ["queue 'q'", "delay", "not a duration"],
    ),
    "a HOCON maxReceiveCount of 3 seconds": (
        "elasticmq.conf",
        "queues { d {}, q { deadLettersQueue { name = d, maxReceiveCount = 3 seconds } } }\n",
        ["queue 'q'", "maxReceiveCount", "whole number"],
    ),
    "a HOCON dead-letter queue named by a block": (
        "elasticmq.conf",
        "queues { q { deadLettersQueue { name { a = 1 }, maxReceiveCount = 3 } } }\n",
        ["queue 'q'", "deadLettersQueue.name"],
    ),
    "a HOCON tag that is a block": (
        "elasticmq.conf",
        "queues { q { tags { team { a = 1 } } } }\n",
        ["queue 'q'", "tag 'team'"],
    ),
    "a HOCON account of -5": (
        "elasticmq.conf",
        "aws { accountId = -5 }\n",
        ["aws", "accountId", "12 digits"],
    ),
    "a HOCON port out of range": (
        "elasticmq.conf",
        "rest-sqs { bind-port = 99999 }\n",
        ["rest-sqs.bind-port"],
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_config_ends_serve_with_one_line_naming_it(tmp_path, capsys, monkeypatch, case):
    async def serves_no_more(*_: object) -> int:  # a file accepted: the server is not started
        return 0

    monkeypatch.setattr(_serving, "_serve_until_signalled", serves_no_more)
    name, text, says = BAD[case]
    path = tmp_path / name
    path.write_text(text)
    status = main(["serve", "--port", "0", "--config", str(path)])
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.count("\n") == 1 and err.startswith(f"sqsmock: {path}: "), err
    for part in says:
        assert part in err, err
    with pytest.raises(ConfigError):  # the same in Python
        mock_sqs(config=str(path))


def test_a_policy_of_every_json_type_still_works(tmp_path):
    path = tmp_path / "queues.toml"
    path.write_text(
        '[queues.q]\nattributes = { Policy = { Version = "2012-10-17", Statement = [{ Sid = '
        '"s", Effect = "Allow", Principal = "*", Action = "sqs:*", Resource = "*", '
        'Condition = { NumericLessThan = { "x" = 1.5 }, Bool = { "y" = true } } }] } }\n'
    )
    with mock_sqs(config=str(path)):
        pass


# -- ElasticMQ's includes --------------------------------------------------------------------


@pytest.fixture
def confs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder for the confs, and a working directory elsewhere holding decoys: files with the
    names the confs include, which a reader looking in the working directory would find."""
    folder = tmp_path / "conf"
    (folder / "inner").mkdir(parents=True)
    elsewhere = tmp_path / "cwd"
    (elsewhere / "inner").mkdir(parents=True)
    for name in ("queues.conf", "inner/more.conf", "only-here.conf"):
        (elsewhere / name).write_text("queues { from-the-working-directory {} }\n")
    monkeypatch.chdir(elsewhere)
    return folder


def names(path: Path) -> list[str]:
    return sorted(q.name for q in load(str(path)).queues)


def test_a_relative_include_is_read_next_to_the_including_file(confs):
    (confs / "elasticmq.conf").write_text('include "queues.conf"\nqueues { main {} }\n')
    (confs / "queues.conf").write_text('queues { included {} }\ninclude "inner/more.conf"\n')
    (confs / "inner" / "more.conf").write_text('queues { nested {} }\ninclude "deepest.conf"\n')
    (confs / "inner" / "deepest.conf").write_text("queues { deepest {} }\n")
    path = confs / "elasticmq.conf"
    assert names(path) == ["deepest", "included", "main", "nested"]
    assert load(str(path)).warnings == ()


@pytest.mark.filterwarnings("ignore:The 'warn' method is deprecated:DeprecationWarning")
def test_a_missing_include_is_skipped_as_hocon_says_and_named_in_a_warning(confs):
    (confs / "elasticmq.conf").write_text('include "only-here.conf"\nqueues { main {} }\n')
    declarations = load(str(confs / "elasticmq.conf"))
    assert [q.name for q in declarations.queues] == ["main"]  # not the working directory's
    [warning] = declarations.warnings
    assert str(confs / "only-here.conf") in warning and "skipped" in warning


def test_a_missing_required_include_is_an_error(confs):
    path = confs / "elasticmq.conf"
    path.write_text('include required("only-here.conf")\nqueues { main {} }\n')
    with pytest.raises(ConfigError) as raised:
        load(str(path))
    message = str(raised.value)
    assert message.startswith(f"{path}: ") and "required include" in message, message
    assert str(confs / "only-here.conf") in message


@pytest.mark.parametrize("name", ["queues.toml", "elasticmq.conf"])
def test_any_other_failure_while_reading_is_still_the_files_one_line_error(
    tmp_path, monkeypatch, name
):
    def unforeseen(*_: object) -> None:
        raise TypeError("something no check foresaw\nand a second line")

    monkeypatch.setattr(_declare, "_from_dict", unforeseen)
    monkeypatch.setattr(_elasticmq._Reader, "read", unforeseen)
    path = tmp_path / name
    path.write_text("")
    with pytest.raises(ConfigError) as raised:
        load(str(path))
    assert str(raised.value) == f"{path}: cannot be read (TypeError: something no check foresaw)"


@pytest.mark.filterwarnings("ignore:The 'warn' method is deprecated:DeprecationWarning")
def test_a_missing_include_is_named_though_logging_was_configured_to_silence_pyhocon(
    confs, monkeypatch
):
    """dictConfig(disable_existing_loggers=True), as Celery and many apps call it, disables
    pyhocon's logger: the skipped include is named all the same."""
    import logging

    logger = logging.getLogger("pyhocon.config_parser")
    monkeypatch.setattr(logger, "disabled", True)
    monkeypatch.setattr(logger, "level", logging.ERROR)
    (confs / "elasticmq.conf").write_text('include "only-here.conf"\nqueues { main {} }\n')
    [warning] = load(str(confs / "elasticmq.conf")).warnings
    assert "only-here.conf" in warning
    assert logger.disabled and logger.level == logging.ERROR  # as it was
