"""What the database tests share: the candidate property tests' store, a
migrated database on each backend that each module's random worlds are
written to and cleared from at the module's end."""

import pytest

from tests.helpers import stored_worlds


@pytest.fixture(scope="module")
def store(migrated_db):
    yield migrated_db
    migrated_db.write(stored_worlds.clear)
