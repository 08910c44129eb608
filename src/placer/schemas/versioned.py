"""The one way to pick a schema (or anything else) by microversion.

``Since({BASE: a, NESTED_PROVIDERS: b}).at(version)`` is ``a`` from 1.0 and
``b`` from 1.14 on. The route table's schemas (``placer.route_table``) are
made of these, and handlers, the query parsers and the OpenAPI document all
read the same objects. Plain data: the pure core may import it.
"""

from collections.abc import Mapping
from typing import Generic, TypeVar

from placer import microversions
from placer.microversions import Version

T = TypeVar("T")


class Since(Generic[T]):
    """A value that changes at given microversions (each step holds until the next)."""

    __slots__ = ("steps",)

    def __init__(self, steps: Mapping[Version, T]):
        if not steps:
            raise ValueError("Since needs at least one step")
        self.steps: tuple[tuple[Version, T], ...] = tuple(sorted(steps.items()))

    @property
    def first(self) -> Version:
        return self.steps[0][0]

    def at(self, version: Version) -> T:
        """The value for ``version``; LookupError before the first step."""
        found: tuple[Version, T] | None = None
        for step in self.steps:
            if tuple(version) < step[0]:
                break
            found = step
        if found is None:
            raise LookupError(f"nothing before {microversions.text(self.first)}")
        return found[1]

    def __repr__(self) -> str:
        return f"Since({dict(self.steps)!r})"
