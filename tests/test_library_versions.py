"""Rules that depend on an installed library's version read it from package metadata, once, in
``Settings`` (so the findings cache is keyed on it)."""

import pytest

from flake8_determinism import settings
from flake8_determinism.checker import check_source

COMPOSE = "import albumentations as A\nt = A.Compose([A.HorizontalFlip()])\n"


@pytest.mark.parametrize("version,reported", [((1, 4, 20), False), ((1, 4, 21), True), ((2, 0, 8), True),
                                              (None, True)])
def test_albumentations_compose_is_reported_from_the_release_that_gave_it_an_rng(version, reported):
    codes = [f.code for f in check_source(COMPOSE, settings.Settings(albumentations_version=version),
                                          filename="augment.py")]
    assert ("DET103" in codes) == reported


def test_the_installed_albumentations_is_read_into_the_settings(monkeypatch):
    monkeypatch.setattr(settings, "installed_library_version",
                        lambda name: (1, 4, 20) if name == "albumentations" else None)
    assert settings.Settings.from_values().albumentations_version == (1, 4, 20)
    assert settings.Settings.from_values(albumentations_version="2.0").albumentations_version == (2, 0)


def test_installed_library_version_reads_metadata_without_importing(monkeypatch):
    monkeypatch.setattr(settings.metadata, "version", lambda name: "2.0.8.post1")
    assert settings.installed_library_version("fake-dist") == (2, 0, 8)
