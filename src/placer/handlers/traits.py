"""PLACEHOLDER: being written."""


def list_provider_traits(req, resp, **params):
    raise NotImplementedError


def set_provider_traits(req, resp, **params):
    raise NotImplementedError


def delete_provider_traits(req, resp, **params):
    raise NotImplementedError


def list_traits(req, resp, **params):
    raise NotImplementedError


def show_trait(req, resp, **params):
    raise NotImplementedError


def create_trait(req, resp, **params):
    raise NotImplementedError


def delete_trait(req, resp, **params):
    raise NotImplementedError
