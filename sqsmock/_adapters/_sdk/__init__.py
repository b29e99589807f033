"""What the botocore and aiobotocore adapters share: both families run botocore's machinery.

aiobotocore's clients are botocore's with coroutines in a few places: the same service model,
event names, parameter validation, request dicts, retry handlers and parsed answers. So the two
adapters are thin shells -- each wraps its own client and endpoint classes and answers with a
plain call or an awaited one -- over these modules, and neither imports the other:

* ``hook``    -- giving an SQS client's event emitter sqsmock's handlers; wrapping SDK classes;
* ``paths``   -- which path a call takes (fast, serialized, full) and the request each path
  hands on, converted into the runtime's parameters and caller;
* ``answer``  -- the answer in botocore's shape: the parsed dict and a lazily rendered HTTP side;
* ``retry``   -- faulted calls, answered per attempt inside botocore's retry loop, whose back-off
  moves a frozen mock clock instead of sleeping.
"""
