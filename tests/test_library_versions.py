"""Rules that depend on an installed library's version read it from package metadata."""

import pytest

from flake8_determinism import settings
from flake8_determinism.checker import check_source

COMPOSE = "import albumentations as A\nt = A.Compose([A.HorizontalFlip()])\n"


@pytest.mark.parametrize("version,reported", [((1, 4, 20), False), ((1, 4, 21), True), ((2, 0, 8), True),
                                              (None, True)])
def test_albumentations_compose_is_reported_from_the_release_that_gave_it_an_rng(monkeypatch, version, reported):
    monkeypatch.setitem(settings._LIBRARY_VERSIONS, "albumentations", version)
    codes = [f.code for f in check_source(COMPOSE, filename="augment.py")]
    assert ("DET103" in codes) == reported


def test_installed_library_version_reads_metadata_without_importing(monkeypatch):
    monkeypatch.setattr(settings.metadata, "version", lambda name: "2.0.8.post1")
    monkeypatch.delitem(settings._LIBRARY_VERSIONS, "fake-dist", raising=False)
    assert settings.installed_library_version("fake-dist") == (2, 0, 8)
    monkeypatch.delitem(settings._LIBRARY_VERSIONS, "fake-dist")
