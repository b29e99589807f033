"""The operations table in docs/ is generated from the registry, which matches botocore."""

from __future__ import annotations

from pathlib import Path

import botocore.session

from sqsmock._service import ACTIONS
from sqsmock._service.operations import render
from sqsmock._service.sns import SNS_ACTIONS

DOC = Path(__file__).resolve().parent.parent / "docs" / "operations.md"


def test_registry_has_exactly_botocores_sqs_operations() -> None:
    model = botocore.session.get_session().get_service_model("sqs")
    assert set(ACTIONS) == set(model.operation_names)


def test_docs_table_is_the_generated_one() -> None:
    assert DOC.read_text() == render(), (
        "docs/operations.md is stale: python -m sqsmock._service.operations > docs/operations.md"
    )


def test_table_lists_every_operation_once() -> None:
    rows = [line for line in render().splitlines() if line.startswith("| ") and "built" in line]
    names = [row.split("|")[1].strip() for row in rows]
    assert sorted(names) == sorted(ACTIONS)


def test_sns_registry_names_only_botocores_sns_operations() -> None:
    """SNS's handlers are apart from SQS's (the APIs share names such as AddPermission), and
    each answers a real SNS operation."""
    model = botocore.session.get_session().get_service_model("sns")
    assert set(SNS_ACTIONS) <= set(model.operation_names)
    assert {"CreateTopic", "Subscribe", "Publish", "PublishBatch"} <= set(SNS_ACTIONS)
    assert "Publish" not in ACTIONS
