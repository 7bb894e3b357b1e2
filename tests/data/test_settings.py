"""The data section's fetch settings and the fetch options they give."""

from __future__ import annotations

from graphaudit.common.settings import load_settings
from graphaudit.data.settings import FetchSettings

FETCH = {"mirror": None, "on_unavailable": "record", "download": {"enabled": False, "retries": 2, "timeout_s": 7}}


def test_options_follow_the_settings_and_the_environment_fills_an_unset_mirror(monkeypatch, tmp_path):
    (tmp_path / "srv").mkdir()
    (tmp_path / "here").mkdir()
    monkeypatch.setenv("GRAPHAUDIT_DATA_MIRROR", str(tmp_path / "srv"))
    options = load_settings(FetchSettings, FETCH).options()
    assert (options.mirror, options.allow_download, options.retries, options.timeout_s) == (
        str(tmp_path / "srv"),
        False,
        2,
        7.0,
    )
    assert options.record_unavailable
    own = load_settings(FetchSettings, {**FETCH, "mirror": str(tmp_path / "here"), "on_unavailable": "error"}).options()
    assert own.mirror == str(tmp_path / "here") and not own.record_unavailable
