"""Runs AWS CLI commands one after the other in one process, as ``aws`` itself would run each.

Started with the Python of an AWS CLI virtualenv. Reads one JSON object per line from stdin,
``{"args": [...], "env": {...}}``, runs the CLI's driver (``awscli.clidriver``, what ``aws``
runs) on that command line, with a driver and botocore session made with that environment, and
answers one JSON line ``{"rc": int, "stdout": str, "stderr": str}``. This only saves the
half second that starting Python and importing the CLI costs for every command.
"""

from __future__ import annotations

import io
import json
import os
import sys

import awscli.clidriver

# Importing the CLI sets AWS_DATA_PATH (where its own data files are); keep it.
CLI_ENV = {key: os.environ[key] for key in ("AWS_DATA_PATH",) if key in os.environ}


_drivers: dict[str, awscli.clidriver.CLIDriver] = {}


def driver_for(env: dict[str, str]) -> awscli.clidriver.CLIDriver:
    """A CLI driver (and botocore session) made with ``env``; one per distinct environment."""
    key = json.dumps(env, sort_keys=True)
    if key not in _drivers:
        os.environ.clear()
        os.environ.update(env)
        os.environ.update(CLI_ENV)
        _drivers[key] = awscli.clidriver.create_clidriver()
    return _drivers[key]


def run(args: list[str], env: dict[str, str]) -> dict[str, object]:
    driver = driver_for(env)
    os.environ.clear()
    os.environ.update(env)
    os.environ.update(CLI_ENV)
    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_bytes, encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(err_bytes, encoding="utf-8", write_through=True)
    saved = sys.argv, sys.stdout, sys.stderr
    sys.argv, sys.stdout, sys.stderr = ["aws", *args], out, err
    try:
        rc = driver.main(args)
    except SystemExit as stop:
        rc = stop.code if isinstance(stop.code, int) else 1
    finally:
        sys.argv, sys.stdout, sys.stderr = saved
    out.flush()
    err.flush()
    return {
        "rc": rc,
        "stdout": out_bytes.getvalue().decode("utf-8"),
        "stderr": err_bytes.getvalue().decode("utf-8", "replace"),
    }


def main() -> None:
    answers = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        answers.write(json.dumps(run(request["args"], request["env"])) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
