"""PLACEHOLDER: being written."""


def list_providers(req, resp, **params):
    raise NotImplementedError


def create_provider(req, resp, **params):
    raise NotImplementedError


def show_provider(req, resp, **params):
    raise NotImplementedError


def delete_provider(req, resp, **params):
    raise NotImplementedError


def update_provider(req, resp, **params):
    raise NotImplementedError
