"""What a topic carries beside its attributes: tags (TagResource, UntagResource,
ListTagsForResource: infrastructure tools such as Terraform read them back right after creating
a topic) and its data protection policy (Put/GetDataProtectionPolicy: kept and echoed, not
enforced)."""

from __future__ import annotations

from typing import Any

from ..._engine.topics import Topic
from ..._errors import SqsError
from .._context import Call
from ._arns import required, topic_named
from ._registry import sns_action

__all__: list[str] = []


def _topic(call: Call, params: dict[str, Any]) -> Topic:
    key = topic_named(call, "ResourceArn", required(params, "ResourceArn"))
    topic = call.backend.topics.get(key)
    if topic is None:
        raise SqsError("SnsResourceNotFound")
    return topic


@sns_action("TagResource")
def tag_resource(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    topic = _topic(call, params)
    given = params.get("Tags") or []
    keys = [str(tag.get("Key")) for tag in given]
    if len(set(keys)) != len(keys):
        raise SqsError("SnsDuplicateTagKeys")
    with call.backend.topics.lock:
        topic.tags.update({str(tag.get("Key")): str(tag.get("Value")) for tag in given})
    return {}


@sns_action("UntagResource")
def untag_resource(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    topic = _topic(call, params)
    with call.backend.topics.lock:
        for key in params.get("TagKeys") or []:
            topic.tags.pop(str(key), None)
    return {}


@sns_action("ListTagsForResource")
def list_tags_for_resource(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    topic = _topic(call, params)
    with call.backend.topics.lock:
        tags = [{"Key": key, "Value": value} for key, value in sorted(topic.tags.items())]
    return {"Tags": tags}


@sns_action("PutDataProtectionPolicy")
def put_data_protection_policy(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    topic = _topic(call, params)
    policy = required(params, "DataProtectionPolicy")
    with call.backend.topics.lock:
        topic.data_protection_policy = policy
    return {}


@sns_action("GetDataProtectionPolicy")
def get_data_protection_policy(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    return {"DataProtectionPolicy": _topic(call, params).data_protection_policy}
