"""The rule documentation (``flake8_determinism/docs.py``): ``docs/rules/DETnnn.md``, the README's rule
table and ``determinism-fix --explain`` are generated from the rule classes, and the committed files are
what the generator gives now."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from flake8_determinism import docs
from flake8_determinism.checker import check_source
from flake8_determinism.fix.cli import main as fix_main
from flake8_determinism.registry import ALL_RULES

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / docs.PAGES
CODES = [rule.code for rule in ALL_RULES]
REGENERATE = "out of date: run `python -m flake8_determinism.docs` and commit the result"
TIMEOUT = 120


@pytest.fixture(scope="module")
def pages():
    """Every page, rendered once (26 examples linted, fixed and linted again)."""
    return docs.expected_pages()


# ------------------------------------------------------------------ no drift


@pytest.mark.parametrize("code", CODES)
def test_committed_page_is_what_the_class_gives(code, pages):
    path = PAGES / ("%s.md" % code)
    assert path.is_file(), "%s is missing: %s" % (path.relative_to(ROOT), REGENERATE)
    assert path.read_text(encoding="utf-8") == pages["%s.md" % code], "%s is %s" % (
        path.relative_to(ROOT), REGENERATE)


def test_one_page_per_rule_and_no_orphans():
    found = sorted(p.name for p in PAGES.iterdir() if p.suffix == ".md")
    assert found == sorted("%s.md" % code for code in CODES), REGENERATE


def test_readme_table_is_what_the_classes_give():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count(docs.TABLE_START) == 1 and readme.count(docs.TABLE_END) == 1
    assert docs.with_table(readme) == readme, "the README's rule table is %s" % REGENERATE
    table = readme[readme.index(docs.TABLE_START):readme.index(docs.TABLE_END)]
    rows = re.findall(r"^\| \[(DET\d{3})\]\(https://\S+/docs/rules/(DET\d{3})\.md\) \|", table, re.MULTILINE)
    assert [code for code, _ in rows] == CODES and all(a == b for a, b in rows)


def test_check_mode_sees_no_drift():
    assert docs.drift(ROOT) == [], REGENERATE


def test_check_mode_reports_a_changed_page_an_orphan_and_the_readme(tmp_path, pages, capsys):
    (tmp_path / docs.PAGES).mkdir(parents=True)
    for name, text in pages.items():
        (tmp_path / docs.PAGES / name).write_text(text, encoding="utf-8")
    (tmp_path / docs.PAGES / "DET202.md").write_text("edited by hand\n", encoding="utf-8")
    (tmp_path / docs.PAGES / "DET999.md").write_text("a rule that is gone\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("# x\n\n%s\nold\n%s\n" % (docs.TABLE_START, docs.TABLE_END), encoding="utf-8")
    assert docs.drift(tmp_path, pages) == ["docs/rules/DET202.md", "docs/rules/DET999.md", "README.md"]
    assert docs.main([str(tmp_path), "--check"]) == 1
    assert "out of date: docs/rules/DET202.md (run `python -m flake8_determinism.docs`)" in capsys.readouterr().out
    docs.write_all(tmp_path)
    assert docs.drift(tmp_path, pages) == []
    assert not (tmp_path / docs.PAGES / "DET999.md").exists()
    assert (tmp_path / "README.md").read_text(encoding="utf-8").startswith("# x\n\n" + docs.TABLE_START)


# ------------------------------------------------------------------ what a page holds


@pytest.mark.parametrize("code", CODES)
def test_page_has_every_section_in_order(code, pages):
    text = pages["%s.md" % code]
    assert text.startswith("# %s: " % code)
    positions = [text.find("\n%s\n" % section) for section in docs.SECTIONS]
    assert all(p > 0 for p in positions), [s for s, p in zip(docs.SECTIONS, positions) if p < 0]
    assert positions == sorted(positions)
    assert "# noqa: %s" % code in text and "extend-ignore = %s" % code in text and "per-file-ignores" in text


@pytest.mark.parametrize("rule", ALL_RULES, ids=CODES)
def test_every_rule_names_its_sources(rule):
    assert rule.sources, "%s: add (fact, source) pairs to `sources`" % rule.code
    for fact, source in rule.sources:
        assert fact.strip() and source.strip()
    assert any("https://" in source for _, source in rule.sources), "%s: no public source (URL)" % rule.code
    assert rule.fix_description.strip()


@pytest.mark.parametrize("code", CODES)
def test_page_shows_the_real_report_and_the_sources(code, pages):
    rule = docs.rule_for(code)
    text = pages["%s.md" % code]
    example = rule.invalid[0]
    assert "```python\n%s```" % example in text
    for finding in check_source(example, docs.settings_for(rule), filename=docs.EXAMPLE):
        assert "%s:%d:%d: %s" % (docs.EXAMPLE, finding.line, finding.column + 1, finding.message) in text
    for _, source in rule.sources:
        assert docs.linked_facts(docs.markdown(source)) in text


@pytest.mark.parametrize("rule", ALL_RULES, ids=CODES)
def test_fixed_example_is_no_longer_reported(rule):
    fixed = docs.fixed_example(rule)
    assert fixed.by_codemod == bool(rule.fixes)
    if not rule.fixes:
        assert fixed.source == rule.fixed
    else:
        assert fixed.source != rule.invalid[0]
        if rule.fixes in ("safe", "unsafe"):
            assert fixed.unsafe == (rule.fixes == "unsafe")
    codes = [f.code for f in check_source(fixed.source, docs.settings_for(rule), filename=docs.EXAMPLE)]
    assert rule.code not in codes


def test_unsafe_fixes_are_shown_as_unsafe(pages):
    assert "`determinism-fix --select=DET109 --unsafe-fixes example.py`" in pages["DET109.md"]
    assert "--unsafe-fixes" not in pages["DET202.md"].split("## Fixed")[1].split("## What")[0]


def test_codes_are_looked_up_in_any_case():
    assert docs.rule_for(" det202 ").code == "DET202"
    assert docs.rule_for("DET999") is None
    with pytest.raises(KeyError):
        docs.render_page("DET999")


# ------------------------------------------------------------------ determinism-fix --explain


def _fix_command():
    script = Path(sys.executable).parent / ("determinism-fix.exe" if os.name == "nt" else "determinism-fix")
    return [str(script)] if script.exists() else [sys.executable, "-m", "flake8_determinism.fix"]


def test_explain_prints_the_page(tmp_path, pages):
    # a real process, in a folder with no PATH to fix and no configuration: --explain needs neither
    proc = subprocess.run(_fix_command() + ["--explain", "DET202"], cwd=str(tmp_path), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=TIMEOUT, env=dict(os.environ, PYTHONIOENCODING="utf-8"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode("utf-8").replace("\r\n", "\n") == pages["DET202.md"]
    assert proc.stderr == b""


def test_explain_unknown_code_exits_2_with_one_line(tmp_path):
    proc = subprocess.run(_fix_command() + ["--explain", "DET999"], cwd=str(tmp_path), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=TIMEOUT, text=True)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "DET999" in proc.stderr


def test_explain_is_case_insensitive(capsys, pages):
    assert fix_main(["--explain", "det109"]) == 0
    assert capsys.readouterr().out == pages["DET109.md"]


def test_docs_module_stays_off_the_plugin_path():
    # the generator runs the codemod (libcst): flake8's plugin must never import it
    code = ("import sys, flake8_determinism.plugin, flake8_determinism.checker, flake8_determinism.fix.cli\n"
            "print('flake8_determinism.docs' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         timeout=TIMEOUT).stdout
    assert out.strip() == "False"


def test_the_readme_links_absolutely_as_a_package_description_must():
    # The README is the long description on PyPI, where a relative link points nowhere.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", readme)
    assert targets, "no links found"
    relative = [t for t in targets if not t.startswith(("http://", "https://", "#", "mailto:"))]
    assert relative == []


def _shipped_pages():
    root = Path(__file__).resolve().parents[1]
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def test_no_page_points_outside_the_repository():
    # Users get the repository (and the package), not the workspace it was written in.
    for page in _shipped_pages():
        text = page.read_text(encoding="utf-8")
        for outside in ("shared/", "catalog §", "RULES.md", "nondeterminism-catalog"):
            assert outside not in text, (page.name, outside)


def test_every_facts_citation_and_rule_link_lands():
    root = Path(__file__).resolve().parents[1]
    facts = (root / "docs" / "facts.md").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([\w-]+)"></a>', facts))
    cited = set()
    for page in _shipped_pages():
        text = page.read_text(encoding="utf-8")
        cited |= set(re.findall(r"facts\.md#([\w-]+)\)", text))
        # a citation written but not linked would send readers nowhere
        assert not re.search(r"(?<!\[)facts §[\d.]+(?:\([a-z]\))?(?!\]\()", text.replace("`facts §2`", "")), page.name
    assert cited and cited <= anchors, sorted(cited - anchors)
    contract = (root / "docs" / "contract.md").read_text(encoding="utf-8")
    for code in re.findall(r"\(rules/(DET\d+)\.md\)", contract):
        assert (root / "docs" / "rules" / (code + ".md")).exists(), code
