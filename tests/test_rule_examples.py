"""Each rule's own ``invalid``/``valid`` examples (Fixit-style), and its documentation."""

import pytest

from flake8_determinism.checker import check_source
from flake8_determinism.registry import ALL_RULES
from flake8_determinism.settings import Settings

INVALID = [(rule, src) for rule in ALL_RULES for src in rule.invalid]
VALID = [(rule, src) for rule in ALL_RULES for src in rule.valid]


@pytest.mark.parametrize("rule,source", INVALID, ids=["%s-%d" % (r.code, i) for i, (r, _) in enumerate(INVALID)])
def test_invalid_example_is_reported(rule, source):
    settings = Settings.from_values(**rule.example_settings)
    assert rule.code in [f.code for f in check_source(source, settings)]


@pytest.mark.parametrize("rule,source", VALID, ids=["%s-%d" % (r.code, i) for i, (r, _) in enumerate(VALID)])
def test_valid_example_is_not_reported(rule, source):
    settings = Settings.from_values(**rule.example_settings)
    assert rule.code not in [f.code for f in check_source(source, settings)]


@pytest.mark.parametrize("rule", ALL_RULES, ids=[r.code for r in ALL_RULES])
def test_rule_is_documented_and_has_examples(rule):
    doc = type(rule).__doc__ or ""
    assert doc.startswith(rule.code + ":")
    for section in ("What it does", "Why it matters", "Fix"):
        assert section in doc
    assert rule.invalid and rule.valid


def test_codes_are_unique_and_sorted():
    codes = [r.code for r in ALL_RULES]
    assert codes == sorted(set(codes))


def test_messages_name_problem_and_fix():
    for rule, source in INVALID:
        for finding in check_source(source, Settings.from_values(**rule.example_settings)):
            assert finding.message.startswith(finding.code + " ")
            assert " — " in finding.message, finding.message
