"""Adapters: the ways SQS calls reach sqsmock, side by side, each calling the protocol layer.

* ``botocore``   -- a ``before-call`` hook on every botocore SQS client in the process;
* ``aiobotocore`` -- the same hook, awaited, on every aiobotocore (and aioboto3) SQS client;
* ``kombu``      -- kombu's asynchronous SQS client (a Celery worker's), answered in process;
* ``http``       -- the HTTP server of ``sqsmock serve`` (both SQS wire protocols).
* ``moto``       -- moto's SNS, S3, EventBridge and Lambda reaching sqsmock's queues in process.

They share the protocol layer, the service and the engine; none calls another or back up. The
in-process ones read the stack of active runtimes in ``_stack`` (installing them is
``sqsmock._activation``'s job, above them); the botocore and aiobotocore adapters share what
both SDKs need in ``_sdk``, and the AWS guard in ``_guard``.
"""
