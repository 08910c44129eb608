"""conf.py declares the options and knows no engine: what it lists of the
engine's names must be the engine's, and the values only the engine can
check stop the app where it is made (wsgi.check_config)."""

import pytest
from oslo_config import cfg

from placer import conf as placer_conf
from placer import wsgi
from placer.candidates import service
from tests.helpers.api import make_conf


def test_the_order_choices_are_the_engines():
    opt = next(o for o in placer_conf.GROUPS["placer"] if o.name == "candidate_order")
    assert tuple(opt.type.choices) == tuple(service.ORDERS)


def test_every_order_named_is_one_the_engine_builds(tmp_path):
    for name in placer_conf.CANDIDATE_ORDERS:
        conf = make_conf(tmp_path, placer={"candidate_order": name})
        assert service.order_from_conf(conf).name == name


@pytest.mark.parametrize(("section", "message"), [
    ({"candidate_order_weights": "VCPU:-1"}, "candidate_order_weights"),
    ({"capacity_shapes": "a=resources=VCPU:x"}, "Shape 'a'"),
])
def test_engine_values_are_checked_when_the_app_is_made(tmp_path, section, message):
    conf = make_conf(tmp_path, placer=section)  # oslo.config's own checks pass
    with pytest.raises(cfg.ConfigFileValueError, match=message):
        wsgi.check_config(conf)
    with pytest.raises(cfg.ConfigFileValueError, match=message):
        wsgi.create_app(conf)
