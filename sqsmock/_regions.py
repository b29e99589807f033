"""AWS region names: which are real, and which real one a typo meant.

Imports nothing from sqsmock or botocore, so every layer may use it (the server path without
loading botocore's endpoint data). ``REGIONS`` is the list of regions AWS had when this release
was made; ``_PATTERNS`` are the partitions' name patterns (as botocore's endpoint data gives
them, with the compass words AWS uses), which also admit regions opened later.
"""

from __future__ import annotations

import re

__all__ = ["REGIONS", "check_region", "is_region", "suggest_region"]

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

_PATTERN = re.compile(
    r"(?:us|eu|ap|sa|ca|me|af|il|mx|cn|us-gov|us-iso|us-isob|us-isof|eu-isoe|eusc-de)"
    r"-(?:central|(?:north|south)(?:east|west)?|east|west)-[0-9]{1,2}"
)
_KNOWN = frozenset(REGIONS)

#: Characters a typist or a font confuses: a substitution between them is the likeliest typo.
_LOOKALIKE = {frozenset(p) for p in ("l1", "i1", "o0", "I1", "O0", "li", "s5", "z2", "b6")}


def is_region(name: object) -> bool:
    """Whether ``name`` is an AWS region (a known one, or one of a partition's form)."""
    return isinstance(name, str) and (name in _KNOWN or _PATTERN.fullmatch(name) is not None)


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
    """Refuse a name that is not an AWS region, suggesting the closest real one."""
    if is_region(region):
        return
    hint = ""
    if isinstance(region, str):
        close = suggest_region(region)
        hint = f" (did you mean {close!r}?)" if close else ""
    shown = repr(region) if not isinstance(region, str) or len(region) <= 60 else "a long name"
    raise ValueError(
        f"{what} {shown} is not an AWS region{hint}; regions look like 'us-east-1' or 'eu-west-2'"
    )
