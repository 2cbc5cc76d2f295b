"""The enrolment QR code, drawn on the server as an inline SVG (segno), and the secret as text to type.

The SVG is a `<title>` and one `<path>`: no script, no link, no external reference, so it sits inside a page
under the portal's Content-Security-Policy as it is. Dark modules on a white square with the standard quiet
zone of four modules, so it scans on any page background. `role="img"` and `aria-label` name it for
screen readers; the secret as text is the accessible way to enrol.
"""

from xml.sax.saxutils import quoteattr

import segno

MODULE_PIXELS = 4
QUIET_ZONE = 4
GROUP = 4
LABEL = "QR code to scan with your authenticator app"


def qr_svg(text, label=LABEL, module_pixels=MODULE_PIXELS):
    """`text` (the otpauth:// URI) as an inline `<svg>` string, `module_pixels` wide per module by default
    and scaling with CSS through its viewBox."""
    code = segno.make(text, error="m", micro=False)
    size = code.symbol_size(scale=1, border=QUIET_ZONE)[0]
    svg = code.svg_inline(scale=1, border=QUIET_ZONE, dark="#000", light="#fff", title=label, omitsize=True,
                          svgclass="qr-code", lineclass=None)
    pixels = size * module_pixels
    attributes = f'<svg width="{pixels}" height="{pixels}" role="img" aria-label={quoteattr(label)} '
    if not svg.startswith("<svg "):
        raise RuntimeError("segno's inline SVG no longer starts with <svg")
    return attributes + svg[len("<svg "):]


def secret_for_typing(secret):
    """The base32 secret in groups of four ("ABCD EFGH ..."): what an app's "enter a setup key" takes."""
    return " ".join(secret[index:index + GROUP] for index in range(0, len(secret), GROUP))
