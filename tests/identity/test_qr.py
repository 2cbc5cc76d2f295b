"""The enrolment QR code: well-formed SVG with nothing active in it, the size of its QR version, and exactly
segno's matrix for the URI (no QR decoder is installed offline, so the drawing is read back module by module);
the secret as text in groups of four."""

import datetime
import re
import xml.etree.ElementTree as ET

import pyotp
import pytest
import segno

from clinicrecords.identity.qr import LABEL, qr_svg, secret_for_typing
from clinicrecords.identity.totp import AuthenticatorApps

SECRET = "PHD2ENIVAWXOJOKNS57HZGIVESV6L4QN"
URI = AuthenticatorApps().provisioning_uri(SECRET, "ana.lima@example.com")


def parsed(svg):
    return ET.fromstring(svg)


def drawn_matrix(svg):
    """The dark modules the SVG's stroked path draws, read from its path data: `M x y`/`m dx dy` moves and
    `h n` horizontal runs of n modules on the row the pen is in the middle of."""
    root = parsed(svg)
    size = int(root.get("viewBox").split()[2])
    (path,) = [p for p in root.iter("path") if p.get("stroke")]
    dark = set()
    x = y = 0.0
    for command, numbers in re.findall(r"([MmHh])([^MmHh]*)", path.get("d")):
        values = [float(n) for n in numbers.replace(",", " ").split()]
        if command == "M":
            x, y = values
        elif command == "m":
            x, y = x + values[0], y + values[1]
        else:
            run = values[0] if command == "h" else values[0] - x
            dark.update((int(x) + i, int(y)) for i in range(int(run)))
            x += run
    return size, dark


def test_the_svg_is_well_formed_and_holds_nothing_active():
    svg = qr_svg(URI)
    root = parsed(svg)
    assert root.tag == "svg"
    assert {element.tag for element in root.iter()} == {"svg", "title", "path"}
    assert not re.search(r"script|href|on[a-z]+=|javascript:|url\(|<style|foreignObject", svg, re.I)
    assert root.find("title").text == LABEL
    assert root.get("role") == "img" and root.get("aria-label") == LABEL


def test_the_label_is_escaped():
    svg = qr_svg(URI, label='Scan "this" <now> & enrol')
    root = parsed(svg)
    assert root.get("aria-label") == 'Scan "this" <now> & enrol'
    assert root.find("title").text == 'Scan "this" <now> & enrol'
    assert "<now>" not in svg


def test_the_size_is_the_qr_versions_with_its_quiet_zone():
    code = segno.make(URI, error="m", micro=False)
    modules = 17 + 4 * code.version + 2 * 4
    root = parsed(qr_svg(URI))
    assert root.get("viewBox") == f"0 0 {modules} {modules}"
    assert (root.get("width"), root.get("height")) == (str(modules * 4), str(modules * 4))
    background = [p for p in root.iter("path") if p.get("fill")]
    assert [p.get("fill") for p in background] == ["#fff"]
    assert background[0].get("d") == f"M0 0h{modules}v{modules}h-{modules}z"
    assert parsed(qr_svg(URI, module_pixels=6)).get("width") == str(modules * 6)


@pytest.mark.parametrize("text", [URI, "otpauth://totp/x?secret=AB", "https://example.com/" + "a" * 300])
def test_the_drawing_is_segnos_matrix_for_the_text(text):
    code = segno.make(text, error="m", micro=False)
    expected = {(column + 4, row + 4) for row, line in enumerate(code.matrix)
                for column, module in enumerate(line) if module & 1}
    size, dark = drawn_matrix(qr_svg(text))
    assert size == code.symbol_size(border=4, scale=1)[0]
    assert dark == expected
    assert all(4 <= x < size - 4 and 4 <= y < size - 4 for x, y in dark)  # the quiet zone stays light


def test_a_different_uri_draws_a_different_code():
    other = AuthenticatorApps().provisioning_uri(pyotp.random_base32(32), "ana.lima@example.com")
    assert drawn_matrix(qr_svg(other))[1] != drawn_matrix(qr_svg(URI))[1]


def test_the_secret_for_typing_is_in_groups_of_four():
    assert secret_for_typing(SECRET) == "PHD2 ENIV AWXO JOKN S57H ZGIV ESV6 L4QN"
    assert secret_for_typing("ABCDEF") == "ABCD EF"


def test_an_app_given_the_typed_secret_makes_the_codes_we_accept():
    now = datetime.datetime(2026, 11, 26, 9, 0, tzinfo=datetime.UTC)
    apps = AuthenticatorApps(clock=lambda: now)
    enrolment = apps.enrolment(SECRET, "ana.lima@example.com")
    typed = enrolment.secret_text.replace(" ", "")  # as apps take a setup key
    assert apps.verify(SECRET, pyotp.TOTP(typed).at(now)) == apps.current_step()
    assert enrolment.uri == URI
    assert drawn_matrix(enrolment.qr_svg) == drawn_matrix(qr_svg(URI))
