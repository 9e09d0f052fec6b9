"""Every lint fixture, under every settings variant it has an expectation for."""

import pytest

from flake8_determinism.checker import check_source
from fixture_support import FIXTURES, cases, expected_lines, fixture_name, format_findings, settings_for

CASES = cases()


def test_fixtures_exist():
    assert len(CASES) >= 20, "fixture discovery found too little: %r" % FIXTURES


@pytest.mark.parametrize(
    "source,expected,variant", CASES, ids=["%s[%s]" % (c[0].relative_to(FIXTURES), c[2]) for c in CASES]
)
def test_fixture(source, expected, variant):
    findings = check_source(source.read_text(encoding="utf-8"), settings_for(variant), filename=fixture_name(source))
    assert format_findings(findings) == expected_lines(expected)


@pytest.mark.parametrize(
    "source,expected,variant", CASES, ids=["%s[%s]" % (c[0].relative_to(FIXTURES), c[2]) for c in CASES]
)
def test_precheck_never_hides_a_report(source, expected, variant):
    text = source.read_text(encoding="utf-8")
    settings = settings_for(variant)
    name = fixture_name(source)
    with_precheck = check_source(text, settings, filename=name)
    assert with_precheck == check_source(text, settings, use_precheck=False, filename=name)
