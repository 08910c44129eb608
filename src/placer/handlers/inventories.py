"""PLACEHOLDER: being written."""


def list_inventories(req, resp, **params):
    raise NotImplementedError


def create_inventory(req, resp, **params):
    raise NotImplementedError


def replace_inventories(req, resp, **params):
    raise NotImplementedError


def delete_inventories(req, resp, **params):
    raise NotImplementedError


def show_inventory(req, resp, **params):
    raise NotImplementedError


def update_inventory(req, resp, **params):
    raise NotImplementedError


def delete_inventory(req, resp, **params):
    raise NotImplementedError
