"""Both supported aiobotocore majors: the async tests also pass with aiobotocore 2.x.

The ``test`` extra installs aiobotocore 3.x; tests/async_support.py builds (once, cached under
``.cache/``) an environment with aiobotocore 2.x and aioboto3 and runs the async modules there.
"""

from __future__ import annotations

import aiobotocore
import async_support


def test_this_environment_has_aiobotocore_3() -> None:
    assert aiobotocore.__version__.split(".")[0] == "3"


def test_async_tests_pass_with_aiobotocore_2() -> None:
    run = async_support.run()
    assert run.versions["aiobotocore"].startswith("2."), run.versions
    outcomes = run.outcomes.get("tests/test_async.py", {})
    assert len(outcomes) >= 20, run.output
    failed = {name: outcome for name, outcome in outcomes.items() if outcome != "PASSED"}
    assert failed == {}, run.output


def test_in_process_hooks_and_the_aws_guard_with_aiobotocore_2() -> None:
    run = async_support.run()
    outcomes = run.outcomes.get("tests/test_interception_async.py", {})
    assert len(outcomes) >= 6, run.output
    failed = {name: outcome for name, outcome in outcomes.items() if outcome != "PASSED"}
    assert failed == {}, run.output
