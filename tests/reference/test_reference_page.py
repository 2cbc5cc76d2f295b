"""GET /v1/docs: the reference page, served without a CDN, rendered by a real headless browser (Debian's
chromium, installed by .ci/run) against the real application on 127.0.0.1."""

import html
import re
import shutil
import subprocess

import pytest

from clinicrecords.api.openapi import document
from clinicrecords.api.reference import CSP
from tests.common.serving import serving


def test_the_page_and_its_script_are_served_with_a_strict_policy(testapp):
    page = testapp.get("/v1/docs", status=200)
    assert page.content_type == "text/html"
    assert page.headers["Content-Security-Policy"] == CSP and "script-src 'self';" in CSP
    assert "http://localhost/v1/docs/redoc.standalone.js" in page.text
    assert 'spec-url="http://localhost/v1/openapi.json"' in page.text
    assert "https://" not in page.text  # nothing from a CDN
    script = testapp.get("/v1/docs/redoc.standalone.js", status=200)
    assert script.content_type == "text/javascript" and len(script.body) > 100_000


def _chromium():
    # Required, not skipped: .ci/run installs Debian's chromium when it is missing.
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "install Debian's chromium (apt-get install chromium; .ci/run does it)"
    return path


@pytest.fixture(scope="module")
def rendered_at(app):
    """(the page's DOM once Redoc has rendered it, the address it was served from): one browser run for the
    module's tests."""
    with serving(app) as served:
        result = subprocess.run(
            [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--virtual-time-budget=30000", "--run-all-compositor-stages-before-draw",
             "--dump-dom", f"{served}/v1/docs"],
            capture_output=True, text=True, timeout=180, check=True)
    return result.stdout, served


@pytest.fixture(scope="module")
def rendered(rendered_at):
    return rendered_at[0]


def _text(dom):
    return html.unescape(re.sub(r"<[^>]+>", "", dom))


def test_a_headless_browser_renders_a_heading_for_every_route(app, rendered):
    dom = rendered
    headings = {html.unescape(re.sub(r"<[^>]+>", "", text)).strip()
                for text in re.findall(r"<h2[^>]*>(.*?)</h2>", dom, flags=re.S)}
    summaries = {operation["summary"] for methods in document(app.registry)["paths"].values()
                 for operation in methods.values()}
    assert len(summaries) > 20
    missing = sorted(summaries - headings)
    assert not missing, f"routes without a heading in the rendered page: {missing}"


def test_the_page_shows_the_error_code_table_the_introduction_points_to(rendered):
    from clinicrecords.api.problem_codes import CODES

    cells = {_text(cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", rendered, flags=re.S)}
    missing = sorted(code for code in CODES if code not in cells)
    assert not missing, f"codes not in the page's table: {missing}"
    assert "table below" in _text(rendered)


def test_the_page_shows_a_curl_sample(rendered_at):
    rendered, served = rendered_at
    text = _text(rendered)
    # The set-up names the address the page was served from, not one hard-coded.
    assert f"export CLINICRECORDS_URL={served}" in text and "localhost:6543" not in text
    assert 'curl -X GET "$CLINICRECORDS_URL/v1/me"' in text
    assert "$CLINICRECORDS_KEY" in text
