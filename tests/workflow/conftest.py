"""The ci run starts in the background as soon as collection ends, when a selected test needs it, so the unit tests
run beside it instead of before it (about 16 minutes alone on 2 cores; the unit tests use one core)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from workflow_runs import BackgroundRun, start_ci_run

CI_RUN = pytest.StashKey[BackgroundRun]()


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.option.collectonly:
        return
    if any("ci_run" in getattr(item, "fixturenames", ()) for item in session.items):
        session.config.stash[CI_RUN] = start_ci_run()


def pytest_sessionfinish(session: pytest.Session) -> None:
    run = session.config.stash.get(CI_RUN, None)
    if run is not None:
        run.stop()
        shutil.rmtree(run.copy.parent, ignore_errors=True)


@pytest.fixture(scope="session")
def ci_run(request: pytest.FixtureRequest) -> Path:
    """The finished ci run's copy of the workflow (results, data, logs): read it, never change it."""
    stash = request.config.stash
    if CI_RUN not in stash:  # collected by another route (a plugin that skips collection_finish)
        stash[CI_RUN] = start_ci_run()
    return stash[CI_RUN].wait()
