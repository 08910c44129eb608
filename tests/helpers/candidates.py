"""Helpers shared by the GET /allocation_candidates functional tests.

Everything is built through the HTTP API (providers, inventories, traits,
aggregates, allocations) under names, so that a scenario reads like the
documentation's diagrams and the same tests can be pointed at the reference
server. Answers are compared by provider name, as sets: the reference
returns candidates in no particular order.
"""

import urllib.parse
import uuid as uuidlib

from tests.helpers import providers
from tests.helpers.api import assert_error

LATEST = "1.39"
SHARING = "MISC_SHARES_VIA_AGGREGATE"
PROJECT = {"project_id": "proj", "user_id": "user"}
BAD_REQUEST = ("The server could not comply with the request since it is either malformed "
               "or otherwise incorrect.\n\n ")


def alloc(**by_name) -> frozenset:
    """One allocation request, canonical: {(provider name, class, amount)}."""
    return frozenset((name, rc, amount) for name, resources in by_name.items()
                     for rc, amount in resources.items())


def mapping(by_suffix: dict) -> frozenset:
    """Canonical mappings: {suffix ('' unsuffixed): [provider names]}."""
    return frozenset((sfx, frozenset(names)) for sfx, names in by_suffix.items())


def version_tuple(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


class Answer:
    """A 200 answer of GET /allocation_candidates, seen by provider names."""

    def __init__(self, env, response, version):
        assert response.status_code == 200, response.text
        self.env = env
        self.version = version
        self.json = response.json
        assert list(self.json) == ["allocation_requests", "provider_summaries"], self.json
        self.requests = self.json["allocation_requests"]
        self.summaries = {env.name_of(u): s for u, s in self.json["provider_summaries"].items()}

    def _allocations(self, request) -> frozenset:
        allocations = request["allocations"]
        if isinstance(allocations, list):  # before 1.12
            pairs = [(a["resource_provider"]["uuid"], a["resources"]) for a in allocations]
        else:
            pairs = [(u, a["resources"]) for u, a in allocations.items()]
        return frozenset((self.env.name_of(u), rc, amount)
                         for u, resources in pairs for rc, amount in resources.items())

    @property
    def allocs(self) -> set:
        """The set of allocation requests. Fails on a duplicate; from 1.34 two
        candidates may allocate alike if their mappings differ."""
        found = [(self._allocations(r), repr(sorted(r.get("mappings", {}).items())))
                 for r in self.requests]
        assert len(found) == len(set(found)), f"duplicate candidates: {found}"
        return {allocations for allocations, _ in found}

    @property
    def with_mappings(self) -> set:
        """(allocations, mappings) pairs (1.34+); fails on a duplicate."""
        found = []
        for request in self.requests:
            assert list(request) == ["allocations", "mappings"], request
            maps = frozenset((sfx, frozenset(self.env.name_of(u) for u in uuids))
                             for sfx, uuids in request["mappings"].items())
            found.append((self._allocations(request), maps))
        assert len(found) == len(set(found)), f"duplicate candidates: {found}"
        return set(found)

    @property
    def named(self) -> list:
        """(allocations, mappings) of each candidate by provider names, in
        answer order; mappings None where the answer has none (before 1.34)."""
        return [(self._allocations(r),
                 frozenset((sfx, frozenset(self.env.name_of(u) for u in uuids))
                           for sfx, uuids in r["mappings"].items()) if "mappings" in r else None)
                for r in self.requests]

    @property
    def summary_traits(self) -> dict:
        """Provider name -> its traits in provider_summaries (None before 1.17)."""
        return {name: frozenset(s["traits"]) if "traits" in s else None
                for name, s in self.summaries.items()}

    @property
    def names(self) -> set:
        """Providers in provider_summaries."""
        return set(self.summaries)


class Env:
    """A named world on the server behind ``api``."""

    def __init__(self, api):
        self.api = api
        self.uuid: dict[str, str] = {}
        self._name: dict[str, str] = {}
        self._generation: dict[str, int] = {}
        self._custom: set[str] = set()

    def name_of(self, uuid: str) -> str:
        return self._name.get(uuid, uuid)

    def _remember(self, name: str, uuid: str) -> str:
        self.uuid[name] = uuid
        self._name[uuid] = name
        return uuid

    def agg(self, name: str) -> str:
        """The uuid of the aggregate called ``name`` (made up on first use)."""
        return self.uuid.get(name) or self._remember(name, str(uuidlib.uuid4()))

    def _custom_names(self, names, collection: str):
        for name in names:
            if name.startswith("CUSTOM_") and name not in self._custom:
                r = self.api.put(f"/{collection}/{name}", version=LATEST)
                assert r.status_code in (201, 204), r.text
                self._custom.add(name)

    def _put(self, name: str, path: str, body: dict):
        uuid = self.uuid[name]
        body["resource_provider_generation"] = self._generation[name]
        r = self.api.put(f"/resource_providers/{uuid}/{path}", version=LATEST, json=body)
        assert r.status_code == 200, r.text
        self._generation[name] = r.json["resource_provider_generation"]

    def rp(self, name: str, parent: str | None = None, inv: dict | None = None,
           traits=(), aggs=()) -> str:
        """Create provider ``name``. ``inv``: class -> total, or -> inventory fields."""
        uuid = self._remember(name, providers.make(
            self.api, name, parent=self.uuid[parent] if parent else None, version=LATEST))
        self._generation[name] = 0
        if inv:
            self._custom_names(inv, "resource_classes")
            inventories = {rc: (spec if isinstance(spec, dict) else {"total": spec})
                           for rc, spec in inv.items()}
            self._put(name, "inventories", {"inventories": inventories})
        if traits:
            self._custom_names(traits, "traits")
            self._put(name, "traits", {"traits": list(traits)})
        if aggs:
            self._put(name, "aggregates", {"aggregates": [self.agg(a) for a in aggs]})
        return uuid

    def traits(self, *names) -> None:
        """Create custom traits (known to the server, on no provider)."""
        self._custom_names(names, "traits")

    def set_traits(self, name: str, traits) -> None:
        self._custom_names(traits, "traits")
        self._put(name, "traits", {"traits": list(traits)})

    def consume(self, usage: dict, consumer: str | None = None) -> str:
        """Allocate ``usage`` (provider name -> class -> amount) to a consumer."""
        consumer = consumer or str(uuidlib.uuid4())
        body = {"allocations": {self.uuid[n]: {"resources": res} for n, res in usage.items()},
                **PROJECT}
        r = self.api.put(f"/allocations/{consumer}", version="1.12", json=body)
        assert r.status_code == 204, r.text
        return consumer

    def path(self, query) -> str:
        """``query``: a string with ``{name}`` placeholders for provider and
        aggregate uuids, or a list of (key, value) pairs (placeholders too)."""
        if isinstance(query, str):
            # latin-1 both ways keeps escaped bytes that are not UTF-8 as they are
            pairs = urllib.parse.parse_qsl(query, keep_blank_values=True, encoding="latin-1")
        else:
            pairs = list(query)
        pairs = [(k, v.format_map(_Lookup(self))) for k, v in pairs]
        return "/allocation_candidates?" + urllib.parse.urlencode(pairs, safe=":,!",
                                                                  encoding="latin-1")

    def get(self, query, version: str = LATEST):
        return self.api.get(self.path(query), version=version)

    def ok(self, query, version: str = LATEST) -> Answer:
        return Answer(self, self.get(query, version), version)

    def bad(self, query, version: str, message: str, code: str | None = None):
        """Assert a 400 whose detail is exactly the reference's."""
        error = assert_error(self.get(query, version), 400, None, code)
        assert error["detail"] == BAD_REQUEST + message + "  ", error["detail"]
        if version_tuple(version) < (1, 23):
            assert "code" not in error
        return error


class _Lookup(dict):
    def __init__(self, env):
        super().__init__()
        self.env = env

    def __missing__(self, key):
        return self.env.uuid[key] if key in self.env.uuid else self.env.agg(key)
