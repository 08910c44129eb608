"""A small HTTP client, and loading a scenario through the Placement API.

Loading uses the bulkiest calls the API offers: whole inventories, traits and
aggregates per provider in one PUT each, and POST /allocations for many
consumers at once. Independent providers are written from a few threads.
"""

import http.client
import json
import threading
import time
import urllib.parse
import uuid
from concurrent.futures import ThreadPoolExecutor

from benchmarks.scenarios import VERSION, Provider, Scenario

ALLOCATION_BATCH = 500  # consumers per POST /allocations
THREADS = 4
_OWNER = {"project_id": str(uuid.uuid4()), "user_id": str(uuid.uuid4())}


class HTTPError(Exception):
    pass


class Client:
    """One keep-alive connection (reopened when the server closes it) per thread."""

    def __init__(self, url: str, token: str = "admin", version: str = VERSION):
        parts = urllib.parse.urlsplit(url)
        self._cls = (http.client.HTTPSConnection if parts.scheme == "https"
                     else http.client.HTTPConnection)
        self._netloc, self._prefix = parts.netloc, parts.path.rstrip("/")
        self._headers = {"X-Auth-Token": token, "Accept": "application/json",
                         "OpenStack-API-Version": f"placement {version}"}
        self._local = threading.local()

    def request(self, method: str, path: str, body=None, version: str | None = None):
        """(status, raw body bytes, seconds from sending to the last byte)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._cls(self._netloc, timeout=600)
        headers = dict(self._headers)
        if version:
            headers["OpenStack-API-Version"] = f"placement {version}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        start = time.perf_counter()
        try:
            conn.request(method, self._prefix + path, body=data, headers=headers)
            resp = conn.getresponse()
            payload = resp.read()
        except (http.client.HTTPException, OSError):
            conn.close()
            raise
        return resp.status, payload, time.perf_counter() - start

    def call(self, method: str, path: str, body=None, version: str | None = None):
        """The decoded JSON answer (None when empty); HTTPError unless 2xx."""
        status, payload, _ = self.request(method, path, body, version)
        if not 200 <= status < 300:
            raise HTTPError(f"{method} {path}: {status} {payload[:500].decode(errors='replace')}")
        return json.loads(payload) if payload else None


def load(client: Client, scenario: Scenario, threads: int = THREADS) -> None:
    """``threads=1`` creates the providers in their order, so their database
    ids (the reference's candidate order) follow it."""
    for name in scenario.custom_classes():
        client.call("PUT", f"/resource_classes/{name}")
    for name in scenario.custom_traits():
        client.call("PUT", f"/traits/{name}")
    with ThreadPoolExecutor(threads) as pool:
        for level in _levels(scenario.providers):
            list(pool.map(lambda p: _create(client, p), level))
        batches = _batches(list(scenario.allocations.items()), ALLOCATION_BATCH)
        list(pool.map(lambda b: client.call("POST", "/allocations", _allocations(b)), batches))


def unload(client: Client, scenario: Scenario) -> None:
    """Remove what ``load`` wrote (for a server that is not ours)."""
    batches = _batches(list(scenario.allocations), ALLOCATION_BATCH)
    for batch in batches:  # 1.27: empty allocations delete, no consumer generation
        body = {c: {"allocations": {}, **_OWNER} for c in batch}
        client.call("POST", "/allocations", body, version="1.27")
    with ThreadPoolExecutor(THREADS) as pool:
        for level in reversed(_levels(scenario.providers)):
            list(pool.map(lambda p: client.call("DELETE", f"/resource_providers/{p.uuid}"),
                          level))


def _create(client: Client, p: Provider) -> None:
    body = {"name": p.name, "uuid": p.uuid}
    if p.parent:
        body["parent_provider_uuid"] = p.parent
    generation = client.call("POST", "/resource_providers", body)["generation"]
    base = f"/resource_providers/{p.uuid}"
    for path, key, value in (("inventories", "inventories", p.inventories),
                             ("traits", "traits", p.traits),
                             ("aggregates", "aggregates", p.aggregates)):
        if value:
            generation = client.call("PUT", f"{base}/{path}", {
                key: value, "resource_provider_generation": generation,
            })["resource_provider_generation"]


def _allocations(batch) -> dict:
    return {consumer: {"allocations": {rp: {"resources": res} for rp, res in alloc.items()},
                       "consumer_generation": None, "consumer_type": "INSTANCE", **_OWNER}
            for consumer, alloc in batch}


def _levels(providers: list[Provider]) -> list[list[Provider]]:
    """Providers grouped by depth: each level only needs the previous ones."""
    depth: dict[str, int] = {}
    levels: list[list[Provider]] = []
    for p in providers:
        d = depth[p.uuid] = depth[p.parent] + 1 if p.parent else 0
        if d == len(levels):
            levels.append([])
        levels[d].append(p)
    return levels


def _batches(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]
