"""placement-manage explain: the explain answer as tables, from the
configured database (Placer's own sub-command)."""

import pytest

from placer.cli import manage
from tests.helpers import cli


@pytest.fixture
def cloud(backend, tmp_path):
    """A database with compute-12 (48 of 64 VCPU free) and compute-3 (16
    VCPU), and a placement.conf pointing at it."""
    with cli.cloud(backend, tmp_path) as (env, url):
        env.rp("compute-12", inv={"VCPU": 64})
        env.rp("compute-3", inv={"VCPU": 16}, traits=["HW_CPU_X86_AVX2"])
        env.consume({"compute-12": {"VCPU": 16}})
        conf_file = tmp_path / "placement.conf"
        conf_file.write_text(f"[placement_database]\nconnection = {url}\n")
        env.conf = str(conf_file)
        yield env


run = cli.runner(manage.main)


def test_prints_the_funnel_as_tables(capsys, cloud):
    code, out, err = run(capsys, "--config-file", cloud.conf, "explain", "resources=VCPU:64")
    assert (code, err) == (0, "")
    assert out.startswith("Candidates: 0, on 0 roots\nOrder: id\n\n"
                          "Funnel of the unsuffixed group (VCPU:64):\n")
    assert "| Constraint | Value   | Providers | Trees | Detail" in out
    assert "| class      | VCPU    | 2         | 2     |" in out
    assert ("| capacity   | VCPU:64 | 0         | 0     | the largest free amount is 48 on "
            "compute-12 |") in out
    assert "Request-wide:\n" in out
    assert out.endswith("Empty after: capacity VCPU:64 (unsuffixed group)\n"
                        "  no provider has 64 free VCPU: the largest free amount is 48 on "
                        "compute-12\n")
    assert "{" not in out  # no JSON


def test_provider_report_and_microversion(capsys, cloud):
    uuid = cloud.uuid["compute-3"]
    code, out, _ = run(capsys, "--config-file", cloud.conf, "explain", "--microversion", "1.17",
                       f"resources=VCPU:32&required=HW_CPU_X86_AVX2&provider={uuid}")
    assert code == 0
    assert f"Provider compute-3 ({uuid}):" in out
    assert "48 VCPU free" not in out
    assert ("16 VCPU free on compute-3 (capacity 16, used 0), 32 asked: 16 short" in out)
    code, out, _ = run(capsys, "--config-file", cloud.conf, "explain", "resources=VCPU:1")
    assert "Candidates: 2, on 2 roots\n" in out
    assert out.endswith("No constraint empties the answer.\n")


@pytest.mark.parametrize("args, message", [
    (["resources=VCPU:x"], "placement-manage explain: Requested resource VCPU expected positive "
                           "integer amount. Got: x."),
    (["resources=CUSTOM_NOPE:1"], "No such resource class CUSTOM_NOPE"),
    (["--microversion", "1.9", "resources=VCPU:1"],
     "--microversion must be from 1.10 to 1.39, not 1.9"),
    (["resources=VCPU:1&required=HW_CPU_X86_AVX2", "--microversion", "1.16"],
     "Invalid query string parameters"),
    (["resources=VCPU:1&provider=00000000-0000-0000-0000-000000000001"],
     "No resource provider with uuid 00000000-0000-0000-0000-000000000001 found"),
    # read as the API reads its query string
    (["resources=VCPU:1;required=CUSTOM_NOPE"], "No such trait(s): CUSTOM_NOPE"),
    (["resources=VCPU:1&required=%FF"], "Invalid query string parameters"),
])
def test_bad_queries_exit_1(capsys, cloud, args, message):
    code, out, err = run(capsys, "--config-file", cloud.conf, "explain", *args)
    assert (code, out) == (1, "")
    assert message in err
