"""Named candidate queries ("shapes", such as a flavor's): POST /capacity's
body, and ``[placer] capacity_shapes`` (NAME=QUERY each) for the capacity
metrics and ``placement-manage capacity``."""

from placer import exceptions, microversions
from placer.candidates import service
from placer.candidates.service import CandidateRequest, Count, Store
from placer.http import query
from placer.microversions import Version
from placer.schemas import allocation_candidates as candidates_schema


def parse(name: str, text: str, version: Version = microversions.MAX) -> CandidateRequest:
    """A shape's query string, parsed as GET /allocation_candidates parses
    its own at ``version``; BadRequest naming the shape."""
    try:
        pairs = query.parse(text.lstrip("?").encode("utf-8", "surrogateescape"))
        if not service.asks_for_resources(pairs):
            raise exceptions.BadRequest("a shape asks for resources (resources=CLASS:N,...)",
                                        code=exceptions.QUERYPARAM_MISSING_VALUE)
        return candidates_schema.parse_query(pairs, version)
    except exceptions.BadRequest as exc:
        raise _named(name, exc) from None


def split(value: str) -> tuple[str, str]:
    """(name, query) of a NAME=QUERY value; ValueError if it is not one."""
    name, sep, text = value.partition("=")
    if not sep or not name.strip() or not text:
        raise ValueError(f"capacity shape {value!r} is not NAME=QUERY "
                         "(e.g. m1.large=resources=VCPU:4,MEMORY_MB:8192)")
    return name.strip(), text


def configured(values: list[str]) -> dict[str, CandidateRequest]:
    """NAME=QUERY values, parsed at the latest microversion, in order;
    ValueError for a malformed or repeated one."""
    shapes: dict[str, CandidateRequest] = {}
    for value in values:
        name, text = split(value)
        if name in shapes:
            raise ValueError(f"capacity shape {name!r} is given twice")
        try:
            shapes[name] = parse(name, text)
        except exceptions.BadRequest as exc:
            raise ValueError(f"capacity_shapes: {exc.detail}") from None
    return shapes


def count(store: Store, requests: dict[str, CandidateRequest], budget: float
          ) -> dict[str, Count]:
    """Each shape counted (service.count_copies) on one store, that is one
    read; BadRequest naming the shape for an unknown class or trait."""
    found: dict[str, Count] = {}
    try:
        for name, counted in service.count_copies(store, requests, budget):
            found[name] = counted
    except exceptions.BadRequest as exc:  # raised counting the first shape not found yet
        raise _named(next(n for n in requests if n not in found), exc) from None
    return found


def _named(name: str, exc: exceptions.BadRequest) -> exceptions.BadRequest:
    return exceptions.BadRequest(f"Shape {name!r}: {exc.detail}", code=exc.code)
