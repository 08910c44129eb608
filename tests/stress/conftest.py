"""The ``stress`` marker: concurrent writers against a real placement-api.

Stress tests run in the default test command; ``-m "not stress"`` leaves them out.
"""


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "stress: concurrency tests driving a real multi-process server")
