"""The oslo tools find Placer as they find the reference: by the entry points
the package declares (installed with ``pip install -e .``)."""

import importlib.metadata
import os
import subprocess
import sys

import pytest

BIN = os.path.dirname(sys.executable)


def _entry_point(group: str, name: str):
    found = [ep for ep in importlib.metadata.entry_points(group=group) if ep.name == name]
    assert found, f"no {group} entry point {name}: run pip install -e ."
    return found[0].load()


@pytest.mark.parametrize("group,name,target", [
    ("oslo.config.opts", "placement", "placer.conf:list_opts"),
    ("oslo.config.opts", "placement.conf", "placer.conf:list_opts"),
    ("oslo.config.opts.defaults", "placement.conf", "placer.conf:set_lib_defaults"),
    ("oslo.policy.policies", "placement", "placer.route_table:policy_defaults"),
    ("oslo.policy.enforcer", "placement", "placer.route_table:policy_enforcer"),
    ("oslo.middleware.healthcheck", "placement_database", "placer.http.health:DatabaseCheck"),
])
def test_entry_points_are_declared(group, name, target):
    module, _, attr = target.partition(":")
    assert _entry_point(group, name) is getattr(importlib.import_module(module), attr)


def _run(tool: str, *args: str, cwd=None) -> str:
    done = subprocess.run([os.path.join(BIN, tool), *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.processes
def test_config_generator(tmp_path):
    sample = _run("oslo-config-generator", "--namespace", "placement", cwd=tmp_path)
    assert "[placement_database]" in sample
    assert "#connection = <None>" in sample
    assert "#max_allocation_candidates = -1" in sample


@pytest.mark.processes
def test_policy_sample_generator(tmp_path):
    sample = _run("oslopolicy-sample-generator", "--namespace", "placement", cwd=tmp_path)
    assert '#"placement:resource_providers:list": "rule:admin_or_service_api"' in sample
    assert '#"admin_api": "role:admin"' in sample


@pytest.mark.processes
def test_policy_list_redundant(tmp_path):
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text('"placement:traits:list": "rule:admin_or_service_api"\n'
                           '"placement:traits:show": "role:reader"\n')
    conf_file = tmp_path / "placement.conf"
    conf_file.write_text(f"[oslo_policy]\npolicy_file = {policy_file}\n")
    out = _run("oslopolicy-list-redundant", "--namespace", "placement",
               "--config-file", str(conf_file), cwd=tmp_path)
    assert out.splitlines() == ['"placement:traits:list": "rule:admin_or_service_api"']
