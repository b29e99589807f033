"""SNS topics and their subscriptions: engine state beside the queues, by region and account.

A topic is named by region, account and name, as a queue is; a subscription by the ARN SNS gives
it (the topic's ARN and a UUID), which is how every call names it. What is kept is plain data --
strings, numbers, dicts of strings -- so that ``Topics.snapshot`` can hand it to a store as it
is. The engine keeps state and the FIFO topic's deduplication window and sequence numbers; the
service validates requests and delivers published messages into queues. Every change holds
``Topics.lock``; it is held only for the change, never across a delivery into a queue (a FIFO
topic's own ``ordering`` lock is).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from .ids import new_message_key, uuid_text
from .outbox import Sender

__all__ = [
    "DEDUPLICATION_WINDOW",
    "Subscription",
    "Topic",
    "TopicKey",
    "Topics",
    "split_topic_arn",
    "topic_arn",
]

#: A FIFO topic remembers a deduplication id this many seconds (five minutes, as SNS).
DEDUPLICATION_WINDOW = 300.0

#: (region, account, name)
TopicKey = tuple[str, str, str]


def topic_arn(region: str, account: str, name: str) -> str:
    return f"arn:aws:sns:{region}:{account}:{name}"


def split_topic_arn(arn: str) -> TopicKey | None:
    """``(region, account, name)`` of a topic ARN; None for anything else."""
    parts = arn.split(":")
    if len(parts) != 6 or parts[0] != "arn" or parts[2] != "sns":
        return None
    return parts[3], parts[4], parts[5]


@dataclass
class Subscription:
    """One subscription of a topic: where to deliver, how, and what happened to deliveries."""

    arn: str
    topic: TopicKey
    protocol: str
    endpoint: str
    owner: str
    principal: str
    #: Attributes as set: RawMessageDelivery, FilterPolicy, FilterPolicyScope, RedrivePolicy...
    attributes: dict[str, str] = field(default_factory=dict)
    #: The token of the confirmation a pending subscription waits for (None: none).
    token: str | None = None
    delivered: int = 0
    #: Messages their queue did not take (gone, or refusing) and no dead-letter queue took.
    dropped: int = 0
    filtered: int = 0
    #: Messages their queue did not take that went to the RedrivePolicy's dead-letter queue.
    dead_lettered: int = 0

    def state(self) -> dict[str, Any]:
        return {
            "arn": self.arn,
            "topic": list(self.topic),
            "protocol": self.protocol,
            "endpoint": self.endpoint,
            "owner": self.owner,
            "principal": self.principal,
            "attributes": dict(self.attributes),
            "token": self.token,
            "delivered": self.delivered,
            "dropped": self.dropped,
            "filtered": self.filtered,
            "dead_lettered": self.dead_lettered,
        }


@dataclass
class Topic:
    region: str
    account: str
    name: str
    fifo: bool
    #: Attributes as set at creation or by SetTopicAttributes (the read-only ones are computed).
    attributes: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    #: The data protection policy (a JSON document), kept and echoed ("": none).
    data_protection_policy: str = ""
    #: Subscription ARNs in the order they were made.
    subscriptions: list[str] = field(default_factory=list)
    subscriptions_deleted: int = 0
    published: int = 0
    #: The last sequence number handed out (FIFO topics).
    sequence: int = 0
    #: Deduplication scope key -> (expiry, MessageId, SequenceNumber) (FIFO topics).
    deduplication: dict[str, tuple[float, str, str]] = field(default_factory=dict)
    #: Held by a FIFO topic's publish from its sequence number to the end of its delivery, so
    #: every queue receives the topic's messages in sequence order (not state: not kept).
    ordering: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def key(self) -> TopicKey:
        return (self.region, self.account, self.name)

    @property
    def arn(self) -> str:
        return topic_arn(self.region, self.account, self.name)

    def state(self) -> dict[str, Any]:
        return {
            "region": self.region,
            "account": self.account,
            "name": self.name,
            "fifo": self.fifo,
            "attributes": dict(self.attributes),
            "tags": dict(self.tags),
            "data_protection_policy": self.data_protection_policy,
            "subscriptions": list(self.subscriptions),
            "subscriptions_deleted": self.subscriptions_deleted,
            "published": self.published,
            "sequence": self.sequence,
        }


class Topics:
    """Every topic and subscription of one mock activation."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._topics: dict[TopicKey, Topic] = {}
        self._subscriptions: dict[str, Subscription] = {}
        #: Sends SNS's HTTP requests to http/https subscribers (the runtime injects it; None: none).
        self.sender: Sender | None = None

    # -- topics -----------------------------------------------------------------------------

    def get(self, key: TopicKey) -> Topic | None:
        return self._topics.get(key)

    def create(self, key: TopicKey, fifo: bool, attributes: dict[str, str]) -> Topic:
        """A new topic (the caller has checked that there is none of that name)."""
        with self.lock:
            topic = Topic(key[0], key[1], key[2], fifo, dict(attributes))
            self._topics[key] = topic
            return topic

    def delete(self, key: TopicKey) -> None:
        """Delete a topic and its subscriptions (nothing if there is none)."""
        with self.lock:
            topic = self._topics.pop(key, None)
            if topic is not None:
                for arn in topic.subscriptions:
                    self._subscriptions.pop(arn, None)

    def listed(self, region: str, account: str) -> list[Topic]:
        """The topics of one region and account, by ARN."""
        with self.lock:
            found = [
                t for t in self._topics.values() if t.region == region and t.account == account
            ]
        found.sort(key=lambda topic: topic.name)
        return found

    # -- subscriptions ----------------------------------------------------------------------

    def subscription(self, arn: str) -> Subscription | None:
        return self._subscriptions.get(arn)

    def find(self, topic: Topic, protocol: str, endpoint: str) -> Subscription | None:
        """The topic's subscription to ``endpoint`` over ``protocol``, if there is one."""
        with self.lock:
            for arn in topic.subscriptions:
                found = self._subscriptions.get(arn)
                if found is not None and found.protocol == protocol and found.endpoint == endpoint:
                    return found
        return None

    def subscribe(
        self,
        topic: Topic,
        protocol: str,
        endpoint: str,
        owner: str,
        principal: str,
        attributes: dict[str, str],
    ) -> Subscription:
        with self.lock:
            arn = f"{topic.arn}:{uuid_text(new_message_key())}"
            made = Subscription(
                arn, topic.key, protocol, endpoint, owner, principal, dict(attributes)
            )
            self._subscriptions[arn] = made
            topic.subscriptions.append(arn)
            return made

    def unsubscribe(self, arn: str) -> None:
        with self.lock:
            gone = self._subscriptions.pop(arn, None)
            if gone is None:
                return
            topic = self._topics.get(gone.topic)
            if topic is not None:
                topic.subscriptions.remove(arn)
                topic.subscriptions_deleted += 1

    def confirm(self, topic: Topic, token: str) -> Subscription | None:
        """Confirm the topic's pending subscription waiting for ``token`` (None: none is)."""
        with self.lock:
            for found in self.subscriptions_of(topic):
                if found.token is not None and found.token == token:
                    found.attributes.pop("PendingConfirmation", None)
                    found.token = None
                    return found
        return None

    def subscriptions_of(self, topic: Topic) -> list[Subscription]:
        with self.lock:
            found = (self._subscriptions.get(arn) for arn in topic.subscriptions)
            return [s for s in found if s is not None]

    def subscriptions_in(self, region: str, account: str) -> list[Subscription]:
        """Every subscription of the topics of one region and account, topic by topic."""
        found: list[Subscription] = []
        for topic in self.listed(region, account):
            found.extend(self.subscriptions_of(topic))
        return found

    def count(self, subscription: Subscription, outcome: str) -> None:
        """One more message ``"delivered"``, ``"dead_lettered"``, ``"dropped"``, ``"filtered"``."""
        with self.lock:
            setattr(subscription, outcome, getattr(subscription, outcome) + 1)

    # -- FIFO topics ------------------------------------------------------------------------

    def deduplicated(self, topic: Topic, key: str, now: float) -> tuple[str, str] | None:
        """(MessageId, SequenceNumber) of a message published under ``key`` within the window."""
        with self.lock:
            seen = topic.deduplication.get(key)
            if seen is None:
                return None
            if seen[0] <= now:
                del topic.deduplication[key]
                return None
            return seen[1], seen[2]

    def next_sequence(self, topic: Topic, key: str, message_id: str, now: float) -> str:
        """The next sequence number, remembering ``key`` for the deduplication window."""
        with self.lock:
            topic.sequence += 1
            number = f"{10_000_000_000_000_000_000 + topic.sequence:d}"
            if len(topic.deduplication) > 10_000:  # forget what has expired
                for old in [k for k, v in topic.deduplication.items() if v[0] <= now]:
                    del topic.deduplication[old]
            topic.deduplication[key] = (now + DEDUPLICATION_WINDOW, message_id, number)
            return number

    # -- the whole ----------------------------------------------------------------------------

    def reset(self) -> None:
        with self.lock:
            self._topics.clear()
            self._subscriptions.clear()

    def snapshot(self) -> dict[str, Any]:
        """Everything as plain data (lists, dicts, strings, numbers), for a store to keep."""
        with self.lock:
            return {
                "topics": [topic.state() for topic in self._topics.values()],
                "subscriptions": [sub.state() for sub in self._subscriptions.values()],
            }
