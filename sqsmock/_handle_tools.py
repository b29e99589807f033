"""What a handle offers for testing failure: the journal, fault rules, delivery settings, Lambda,
and waits for what consumers did (``wait_for``, ``expect_none``).

Every handle (``mock_sqs``'s, the server's) inherits it; all it needs is the handle's active
``runtime``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._features.chaos import Delivery
from ._features.faults import Faults
from ._features.journal import CallJournal
from ._features.waiters import QueueEvent, Where

if TYPE_CHECKING:
    from ._features.lambda_events import LambdaRun
    from ._runtime import Runtime

__all__ = ["FailureTools"]


class FailureTools:
    """Mixed into a handle: ``calls``, ``faults``, ``chaos()``, ``lambda_event()``,
    ``run_lambda()``, ``wait_for()``, ``expect_none()`` and their async forms."""

    @property
    def runtime(self) -> Runtime:
        raise NotImplementedError

    @property
    def calls(self) -> CallJournal:
        """Every SQS call answered, in order: ``calls.of("SendMessage")``, ``calls.clear()``."""
        return self.runtime.journal

    @property
    def faults(self) -> Faults:
        """Fault injection: ``faults.add(operation, error=..., times=... | probability=...)``."""
        return self.runtime.faults

    def chaos(
        self,
        *,
        duplicates: float = 0.0,
        reorder: float = 0.0,
        empty_receives: float = 0.0,
        seed: int | str | None = None,
        queue: str | None = None,
    ) -> Delivery:
        """At-least-once delivery on standard queues (all, or the one named ``queue``): each
        argument a probability -- a message delivered again later, a receive's messages
        shuffled, a short poll answering empty while messages wait. ``seed`` makes it
        repeatable. Returns the settings in force (with the seed chosen, if none was given);
        ``chaos()`` with no probabilities ends them."""
        delivery = Delivery(duplicates, reorder, empty_receives, seed)
        found = self.runtime.chaos.set(delivery if delivery.any else None, queue)
        return found if found is not None else delivery

    def lambda_event(self, queue: str, max_messages: int = 10) -> dict[str, Any]:
        """Receive up to ``max_messages`` from ``queue`` and return them as the event Lambda's
        SQS event source hands a function (``{"Records": [...]}``)."""
        from ._features.lambda_events import lambda_event

        return lambda_event(self.runtime, queue, max_messages)

    def run_lambda(
        self,
        handler: Callable[[dict[str, Any], Any], Any],
        queue: str,
        *,
        batch_size: int = 10,
        report_batch_item_failures: bool = True,
        context: Any = None,
        max_batches: int | None = None,
    ) -> LambdaRun:
        """Drive ``handler(event, context)`` as a Lambda event-source mapping on ``queue`` would
        until the queue has nothing visible: receive a batch, invoke, delete what succeeded.
        Messages the handler reports in ``batchItemFailures`` (or all of a batch when it
        raises) stay and come back after their visibility timeout -- or go to the dead-letter
        queue by the redrive policy. Returns a summary (``LambdaRun``)."""
        from ._features.lambda_events import run_lambda

        return run_lambda(
            self.runtime,
            handler,
            queue,
            batch_size=batch_size,
            report_batch_item_failures=report_batch_item_failures,
            context=context,
            max_batches=max_batches,
        )

    # -- waiting for consumers --------------------------------------------------------------

    def wait_for(
        self,
        queue: str,
        event: str = "deleted",
        *,
        count: int = 1,
        where: Where = None,
        timeout: float = 5.0,
        region: str | None = None,
    ) -> list[QueueEvent]:
        """Wait until ``count`` messages of ``queue`` (name or URL) had ``event`` --
        ``"sent"``, ``"received"``, ``"deleted"`` or ``"dead-lettered"`` -- counting from the
        mock's start or last reset, and return those events (``QueueEvent``), oldest first.
        ``where``: a body string, or a function of the event that says whether it counts.
        Returns the moment the event happens, from whichever thread or process caused it;
        after ``timeout`` real seconds raises ``WaitTimeout`` (an AssertionError) saying what
        did happen to the queue. A dead-lettered message's event belongs to the queue it left
        and is found by naming its dead-letter queue too."""
        events = self.runtime.events
        return events.wait(events.query(queue, event, count, where, region), timeout)

    async def wait_for_async(
        self,
        queue: str,
        event: str = "deleted",
        *,
        count: int = 1,
        where: Where = None,
        timeout: float = 5.0,
        region: str | None = None,
    ) -> list[QueueEvent]:
        """``wait_for`` for a coroutine: awaits without blocking the event loop."""
        events = self.runtime.events
        return await events.wait_async(events.query(queue, event, count, where, region), timeout)

    def expect_none(
        self,
        queue: str,
        event: str = "sent",
        *,
        within: float = 1.0,
        where: Where = None,
        region: str | None = None,
    ) -> None:
        """Assert that no message of ``queue`` has ``event`` from now until ``within`` seconds
        of the mock's clock have passed: raises ``UnexpectedEvent`` (an AssertionError) at the
        first one. On a frozen clock the clock is advanced by ``within`` and then checked (no
        real time passes); on a wall clock this waits ``within`` real seconds, or less if the
        clock is advanced meanwhile."""
        events = self.runtime.events
        events.expect_none(events.query(queue, event, 1, where, region), within)

    async def expect_none_async(
        self,
        queue: str,
        event: str = "sent",
        *,
        within: float = 1.0,
        where: Where = None,
        region: str | None = None,
    ) -> None:
        """``expect_none`` for a coroutine: awaits without blocking the event loop."""
        events = self.runtime.events
        await events.expect_none_async(events.query(queue, event, 1, where, region), within)
