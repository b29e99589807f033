"""The LocalStack suite runner's own bookkeeping: every explained outcome says which kind it is,
and a mode's own entry wins over the general one. (The suite itself needs a LocalStack checkout
and does not run here; see compat/README.md.)"""

from __future__ import annotations

import gzip
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import botocore.session
import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "compat" / "localstack_suite.py"


@pytest.fixture(scope="module")
def suite() -> Any:
    spec = importlib.util.spec_from_file_location("localstack_suite", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["localstack_suite"] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules["localstack_suite"]


def test_every_explanation_names_its_kind(suite):
    kinds = (suite.DIFFERS, suite.HARNESS, suite.NOT_APPLICABLE)
    assert suite.KNOWN
    for key, reason in suite.KNOWN.items():
        assert reason.startswith(kinds), key
        prefix, _, rest = key.partition(":")
        name = rest if prefix in suite.MODES else key
        assert name.startswith(("TestSqsProvider::", "TestSqsQueryApi::")), key


def test_a_modes_own_entry_wins_over_the_general_one(suite, monkeypatch):
    known = {
        "TestSqsProvider::test_x": suite.NOT_APPLICABLE + "everywhere",
        "query:TestSqsProvider::test_x[sqs]": suite.HARNESS + "query, [sqs] only",
    }
    monkeypatch.setattr(suite, "KNOWN", known)
    node = "tests/aws/services/sqs/test_sqs.py::TestSqsProvider::test_x"
    assert suite.reason_for("query", node + "[sqs]")[1] == suite.HARNESS + "query, [sqs] only"
    assert suite.reason_for("query", node + "[sqs_query]")[1] == known["TestSqsProvider::test_x"]
    assert suite.reason_for("json", node + "[sqs]")[1] == known["TestSqsProvider::test_x"]
    assert suite.reason_for("json", node.replace("test_x", "test_y")) is None


def test_the_query_client_sends_both_attribute_lists_as_localstacks_recordings_did(suite):
    # LocalStack's query model gives MessageSystemAttributeNames the shape of AttributeNames, so
    # both lists go out as AttributeName.N: the request AWS answered when the snapshot was taken.
    data = Path(suite.query_data_path())
    model = json.loads((data / "sqs" / "2012-11-05" / "service-2.json").read_text())
    members = model["shapes"]["ReceiveMessageRequest"]["members"]
    assert members["MessageSystemAttributeNames"] == {"shape": "AttributeNameList"}
    original = json.loads(gzip.decompress(suite.QUERY_MODEL.read_bytes()))
    assert (
        "MessageSystemAttributeNames" not in original["shapes"]["ReceiveMessageRequest"]["members"]
    )
    session = botocore.session.get_session()
    session.get_component("data_loader").search_paths.insert(0, str(data))
    assert session.get_service_model("sqs").metadata["protocol"] == "query"
