"""AWS region names: what one looks like, which are real, and which real one a typo meant.

A region reaches sqsmock from many sides -- ``mock_sqs(region=...)``, ``serve(region=...)``,
``sqsmock serve --region``, a config file, a request's SigV4 credential scope, a queue URL, the
admin API's ``region=`` -- and ends up in queue URLs, ARNs, metrics labels and store keys. Only
names of AWS's form pass (``us-east-1``, ``us-gov-west-1``, ``us-isob-east-1``, ``cn-north-1``,
``eusc-de-east-1``): short, lower-case ASCII, no separator of any URL, ARN or key, a compass word
AWS uses. ``REGIONS`` lists the regions AWS had when this release was made; newer ones of the
same form pass too. This module imports nothing, so that any layer (the engine and the store
included) may use it, and the server never loads botocore's endpoint data for it.
"""

from __future__ import annotations

import re

__all__ = ["REGION", "REGIONS", "check_region", "is_region", "shown", "suggest_region"]

#: A partition prefix, an optional qualifier (``gov``, ``iso``, ``isob``, ``de``...), a
#: direction (``east``, ``southeast``, ``central``...) and a number of one or two digits.
REGION = re.compile(
    r"(?:us|eu|ap|sa|ca|me|af|il|mx|cn|eusc)(?:-[a-z]{2,4})?"
    r"-(?:central|(?:north|south)(?:east|west)?|east|west)-[0-9]{1,2}",
    re.ASCII,
)

REGIONS: tuple[str, ...] = (
    "af-south-1", "ap-east-1", "ap-east-2", "ap-northeast-1", "ap-northeast-2",
    "ap-northeast-3", "ap-south-1", "ap-south-2", "ap-southeast-1", "ap-southeast-2",
    "ap-southeast-3", "ap-southeast-4", "ap-southeast-5", "ap-southeast-6", "ap-southeast-7",
    "ca-central-1", "ca-west-1", "eu-central-1", "eu-central-2", "eu-north-1", "eu-south-1",
    "eu-south-2", "eu-west-1", "eu-west-2", "eu-west-3", "il-central-1", "me-central-1",
    "me-south-1", "mx-central-1", "sa-east-1", "us-east-1", "us-east-2", "us-west-1",
    "us-west-2", "cn-north-1", "cn-northwest-1", "us-gov-east-1", "us-gov-west-1",
    "us-iso-east-1", "us-iso-west-1", "us-isob-east-1", "us-isob-west-1", "eu-isoe-west-1",
    "us-isof-east-1", "us-isof-south-1", "eusc-de-east-1",
)  # fmt: skip

#: Names already found good: every request names its region, nearly always the same few.
_GOOD: set[str] = set(REGIONS)
_GOOD_LIMIT = len(REGIONS) + 64

#: Characters a typist or a font confuses: a substitution between them is the likeliest typo.
_LOOKALIKE = {frozenset(p) for p in ("l1", "i1", "o0", "I1", "O0", "li", "s5", "z2", "b6")}


def is_region(value: object) -> bool:
    """Whether ``value`` is a region name of AWS's form (not whether AWS has that region)."""
    if not isinstance(value, str):
        return False
    if value in _GOOD:
        return True
    if REGION.fullmatch(value) is None:
        return False
    if len(_GOOD) < _GOOD_LIMIT:
        _GOOD.add(value)
    return True


def shown(value: object, limit: int = 64) -> str:
    """A refused region as an error message quotes it: printable, at most ``limit`` characters."""
    text = value if isinstance(value, str) else repr(value)
    text = "".join(c if c.isprintable() else "?" for c in text[: limit + 1])
    return text if len(text) <= limit else text[:limit] + "..."


def _cost(a: str, b: str) -> float:
    """Edit distance where swapping look-alike characters costs less than other edits."""
    previous = [float(j) for j in range(len(b) + 1)]
    for i, ca in enumerate(a, 1):
        current = [float(i)]
        for j, cb in enumerate(b, 1):
            sub = 0.0 if ca == cb else (0.5 if frozenset((ca, cb)) in _LOOKALIKE else 1.0)
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + sub))
        previous = current
    return previous[-1]


def suggest_region(name: str) -> str | None:
    """The real region closest to ``name``, if one is close enough to be what was meant."""
    if len(name) > 40:
        return None
    lowered = name.strip().lower()
    best = min(REGIONS, key=lambda r: (_cost(lowered, r), r))
    return best if _cost(lowered, best) <= 2 else None


def check_region(region: object, what: str = "region") -> None:
    """Refuse a name that is not an AWS region (ValueError), suggesting the closest real one."""
    if is_region(region):
        return
    hint = ""
    if isinstance(region, str):
        close = suggest_region(region)
        hint = f" (did you mean {close!r}?)" if close else ""
    raise ValueError(
        f"{what} {shown(region)!r} is not an AWS region{hint}; regions look like 'us-east-1' or "
        "'eu-west-2'"
    )
