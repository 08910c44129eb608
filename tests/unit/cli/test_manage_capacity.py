"""placement-manage capacity: the configured and given shapes counted from
the configured database, as a table or POST /capacity's JSON, or the free
capacity per class without shapes (Placer's own sub-command)."""

import json

import pytest

from placer.cli import manage
from tests.helpers import cli

run = cli.runner(manage.main)


@pytest.fixture
def cloud(backend, tmp_path):
    """host-a: 64 VCPU, 16 used, 64 GiB; host-b: 16 VCPU, 8 GiB; a
    placement.conf with one shape."""
    with cli.cloud(backend, tmp_path) as (env, url):
        env.rp("host-a", inv={"VCPU": 64, "MEMORY_MB": 65536})
        env.rp("host-b", inv={"VCPU": 16, "MEMORY_MB": 8192})
        env.consume({"host-a": {"VCPU": 16}})
        conf_file = tmp_path / "placement.conf"
        conf_file.write_text(f"[placement_database]\nconnection = {url}\n[placer]\n"
                             "capacity_shapes = m1.large=resources=VCPU:4,MEMORY_MB:8192\n")
        env.conf = str(conf_file)
        yield env


def test_table_of_the_configured_and_given_shapes(capsys, cloud):
    code, out, err = run(capsys, "--config-file", cloud.conf, "capacity",
                         "--shape", "tiny=resources=VCPU:1,MEMORY_MB:512")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert [c.strip() for c in lines[1].split("|")[1:-1]] == [
        "Shape", "Query", "Fits", "Roots", "Most on one root", "Not proven"]
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in lines[3:-1]}
    # m1.large: host-a 8 (memory), host-b 1; tiny: host-a 48 (VCPU), host-b 16
    assert rows == {"m1.large": ["resources=VCPU:4,MEMORY_MB:8192", "9", "2", "host-a (8)",
                                 "0"],
                    "tiny": ["resources=VCPU:1,MEMORY_MB:512", "64", "2", "host-a (48)", "0"]}


def test_json_is_the_post_answer(capsys, cloud):
    code, out, _ = run(capsys, "--config-file", cloud.conf, "capacity", "--json")
    assert code == 0
    expected = cloud.api.post("/capacity", version="1.39", json={
        "shapes": {"m1.large": "resources=VCPU:4,MEMORY_MB:8192"}}).json
    assert json.loads(out) == expected


def test_without_shapes_the_free_capacity_per_class(capsys, cloud, tmp_path):
    bare = tmp_path / "bare.conf"
    bare.write_text(open(cloud.conf).read().split("[placer]")[0])
    code, out, _ = run(capsys, "--config-file", str(bare), "capacity", "--json")
    assert code == 0
    assert json.loads(out) == {"resources": {
        "MEMORY_MB": {"capacity": 73728, "used": 0, "free": 73728},
        "VCPU": {"capacity": 80, "used": 16, "free": 64}}}
    code, out, _ = run(capsys, "--config-file", str(bare), "capacity")
    assert "| VCPU      | 80       | 16   | 64    |" in out


@pytest.mark.parametrize("shape, message", [
    ("nameonly", "is not NAME=QUERY"),
    ("x=resources=CUSTOM_NOPE:1", "Shape 'x': Invalid resource class in resources parameter"),
    ("x=resources=VCPU:0", "Shape 'x': "),
])
def test_bad_shapes_exit_1(capsys, cloud, shape, message):
    code, out, err = run(capsys, "--config-file", cloud.conf, "capacity", "--shape", shape)
    assert code == 1 and out == ""
    assert err.startswith("placement-manage capacity: ") and message in err
