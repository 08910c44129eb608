"""PLACEHOLDER: being written."""


def provider_usages(req, resp, **params):
    raise NotImplementedError
