"""What every fuzz test checks of an answer: no server error, and an error
body that says what was wrong (tests/functional/test_fuzz*.py)."""


def check_answer(world, request) -> None:
    """``request``: (method, path, version, headers, body), sent to the Api
    ``world``."""
    method, path, version, headers, body = request
    r = world.request(method, path, version=version, headers=headers, body=body)
    assert r.status_code < 500, f"{method} {path} {version} {headers} {body!r}: {r.text}"
    if r.status_code >= 400 and r.status_code != 401 and r.content_type == "application/json":
        error = r.json["errors"][0]
        assert error["status"] == r.status_code and error["detail"]
