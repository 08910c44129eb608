"""placement-api's options reach gunicorn, and the master prepares the
database once before any worker exists."""

import pytest
import sqlalchemy as sa

from placer.cli import api
from placer.db import tables


@pytest.fixture
def served(monkeypatch, tmp_path):
    """Runs ``main`` up to the point gunicorn would start; returns its settings."""
    seen = {}

    def run(self):
        seen["cfg"] = self.cfg

    monkeypatch.setattr(api._Server, "run", run)
    monkeypatch.setattr("oslo_log.log.setup", lambda *a, **k: None)  # leave pytest's logging
    url = f"sqlite:///{tmp_path}/placement.sqlite"
    conf = tmp_path / "placement.conf"
    conf.write_text("[api]\nauth_strategy = noauth2\n"
                    f"[placement_database]\nconnection = {url}\nsync_on_startup = True\n")

    def main(*args):
        assert api.main(["--config-file", str(conf), *args]) == 0
        return seen["cfg"]

    main.url = url
    return main


def test_defaults(served):
    cfg = served()
    assert (cfg.workers, cfg.timeout, cfg.worker_class_str, cfg.threads) == (1, 30, "sync", 1)


def test_timeout_and_threaded_workers(served):
    cfg = served("--workers", "2", "--timeout", "300", "--worker-class", "gthread",
                 "--threads", "8", "--bind", "127.0.0.1:0")
    assert (cfg.workers, cfg.timeout, cfg.worker_class_str, cfg.threads) == (2, 300, "gthread", 8)
    assert cfg.bind == ["127.0.0.1:0"]


def test_master_migrates_and_syncs_names_before_forking(served):
    served()
    engine = sa.create_engine(served.url)
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(tables.traits)).scalar() > 0
        assert conn.execute(
            sa.select(tables.resource_classes.c.id).where(
                tables.resource_classes.c.name == "VCPU")).scalar() == 0
    engine.dispose()


def test_a_bad_option_value_is_refused_before_anything_starts(tmp_path, capsys):
    conf = tmp_path / "placement.conf"
    conf.write_text("[placement_database]\nconnection = sqlite://\nmax_retries = many\n")
    assert api.main(["--config-file", str(conf)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("placement-api: configuration error: Value for option max_retries")
