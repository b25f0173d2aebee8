"""`rulewright check --output-format html`: one self-contained page, safe with hostile specs, that a
real browser renders (headless Chromium; CI installs it, see .ci/run)."""
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from checker import engine
from checker.cli import main
from checker.outputs import html

FIXTURES = Path(__file__).resolve().parent / "fixtures"
INVARIANT = FIXTURES / "invariant" / "defect.rw"


class _Collect(HTMLParser):
    """Every tag with its attributes, and the text, of a page."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parse(page: str) -> _Collect:
    p = _Collect()
    p.feed(page)
    return p


def test_the_report_shows_the_summary_the_finding_and_its_trace_with_linked_rules():
    page = html.render(engine.check([str(INVARIANT)]))
    doc = parse(page)
    text = "".join(doc.text)
    assert "invariant `shared_life` does not hold" in text
    assert "shock(q=B1)" in text and "Z3 replay: confirmed" in text
    assert "Each team has a shared life total" in text  # the quoted rule, in the rules section
    anchors = {a["id"] for t, a in doc.tags if "id" in a}
    links = [a["href"] for t, a in doc.tags if t == "a"]
    assert links and all(h.startswith("#") and h[1:] in anchors for h in links)  # every rule link resolves
    assert any(t == "td" and a.get("class") == "chg" for t, a in doc.tags)  # changed values highlighted
    assert any(t == "svg" for t, _ in doc.tags)  # the drawing of the path


def test_nothing_can_be_fetched_from_the_page():
    page = html.render(engine.check([str(FIXTURES / "livelock")]))
    doc = parse(page)
    csp = [a for t, a in doc.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0]["content"]
    assert not [t for t, _ in doc.tags if t in ("script", "link", "img", "iframe", "object", "embed", "base")]
    for t, a in doc.tags:
        for attr in ("src", "href", "xlink:href", "action", "srcset"):
            assert not re.match(r"\s*(https?:|//|file:|data:)", a.get(attr) or "", re.I), (t, a)
    assert "http://" not in page and "https://" not in page


HOSTILE = """document {
  1: "</dd><script>alert(1)</script><img src=https://evil.example/x.png>"
}
players 2
var x [1]: 0..1 = 0
invariant never_one [1]: x == 0
action a [1] progress when x == 0 do x := 1; end
"""


def test_a_hostile_spec_cannot_inject_markup(tmp_path):
    spec = tmp_path / "<b onmouseover=alert(1)>.rw"
    spec.write_text(HOSTILE, encoding="utf-8")
    page = html.render(engine.check([str(spec)]))
    doc = parse(page)
    assert not [t for t, _ in doc.tags if t in ("script", "img", "b")]
    assert not [a for _, a in doc.tags if any(k.startswith("on") for k in a)]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_the_page_is_the_same_in_every_run():
    assert html.render(engine.check([str(INVARIANT)])) == html.render(engine.check([str(INVARIANT)]))


def test_the_cli_writes_the_page(capsys):
    assert main(["check", str(INVARIANT), "--output-format", "html"]) == 1
    assert capsys.readouterr().out.startswith("<!DOCTYPE html>")


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(_chromium() is None and not os.environ.get("RULEWRIGHT_REQUIRE_BROWSER"),
                    reason="chromium is not installed (.ci/run installs Debian's chromium and requires this test)")
def test_headless_chromium_renders_the_report(tmp_path):
    assert _chromium(), "RULEWRIGHT_REQUIRE_BROWSER is set but chromium is not installed"
    page = tmp_path / "report.html"
    page.write_text(html.render(engine.check([str(INVARIANT)])), encoding="utf-8")
    # every host name resolves to nothing: a fetch the page tried would fail, never leave the machine
    done = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={tmp_path / 'profile'}",
                           "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    dom = done.stdout
    assert done.returncode == 0, done.stderr[-2000:]
    doc = parse(dom)
    text = "".join(doc.text)
    assert "invariant `shared_life` does not hold" in text
    assert "shock(q=B1)" in text  # the fixture finding's trace, as the browser built the DOM
    assert sum(1 for t, a in doc.tags if t == "td" and a.get("class") == "chg") >= 2
    assert any(t == "svg" for t, _ in doc.tags) and any(t == "circle" for t, _ in doc.tags)
