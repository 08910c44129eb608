"""PLACEHOLDER: being written."""


def list_aggregates(req, resp, **params):
    raise NotImplementedError


def set_aggregates(req, resp, **params):
    raise NotImplementedError
