"""Every text/background pair the portal's stylesheet declares reads at WCAG 2.1 AA's contrast (1.4.3: 4.5:1
for text, computed as WCAG defines it from the relative luminance of each colour).

The pairs, read from portal.css itself (so a new rule is checked without touching this test):
- a rule that sets both a colour and a background (a button, a tag, the masthead, the green "done" panel);
- a rule that sets a background only, with the text colour it inherits (the page's);
- a rule that sets a colour only: on the background of the rule its selector sits in (`.masthead a` on
  `.masthead`), else on each background text is put on in the flow of a page (the page's, and white: panels,
  cards, tables, fields);
- links (`a`) on every background that may hold a paragraph, unless a rule gives that background's links a colour
  of their own: "Continue to the portal" in the green panel was the link's blue on green, 1.15:1.
"""

import pathlib
import re

import clinicrecords.portal.web

STYLESHEET = pathlib.Path(clinicrecords.portal.web.__file__).parent / "static" / "portal.css"
AA_TEXT = 4.5

# Backgrounds that hold no paragraph, so no link: the link is the element itself (buttons), one word (tags),
# a secret shown to be copied, a form control, a chart's bar (a fill, not a background).
NO_LINKS_INSIDE = re.compile(r"^(\.button|\.tag|\.secret|pre\.secret|input|textarea|select|\.chart)")


def _rules(css):
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        declarations = dict((name.strip(), value.strip()) for name, _, value in
                            (part.partition(":") for part in body.split(";")) if value.strip())
        for selector in selectors.split(","):
            selector = " ".join(selector.split())
            if selector and not selector.startswith("@"):
                yield selector, declarations


def _hex(value):
    found = re.search(r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b", value or "")
    if not found:
        return None
    digits = found.group(1)
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    return "#" + digits.lower()


def luminance(colour):
    """WCAG 2.1's relative luminance of an sRGB colour (#rrggbb)."""
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(first, second):
    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def declared_pairs(css):
    """[(what, text colour, background)] as described above."""
    rules = list(_rules(css))
    colours = {selector: _hex(d.get("color")) for selector, d in rules if _hex(d.get("color"))}
    backgrounds = {selector: _hex(d.get("background") or d.get("background-color"))
                   for selector, d in rules if _hex(d.get("background") or d.get("background-color"))}
    page_text, page_background = colours["html"], backgrounds["html"]
    link = colours["a"]
    flow_backgrounds = {page_background, "#ffffff"}
    pairs = []
    for selector, background in backgrounds.items():
        text = colours.get(selector, page_text)
        pairs.append((f"{selector} (text)", text, background))
        if not NO_LINKS_INSIDE.match(selector) and selector != "html":
            pairs.append((f"{selector} a (link)", colours.get(f"{selector} a", link), background))
    for selector, text in colours.items():
        if selector in backgrounds:
            continue
        container = selector.rsplit(" ", 1)[0] if " " in selector else None
        if container in backgrounds:
            pairs.append((selector, text, backgrounds[container]))
        else:
            pairs.extend((f"{selector} on {background}", text, background) for background in sorted(flow_backgrounds))
    return pairs


def test_wcag_contrast_of_known_colours():
    # WCAG's own reference points: black on white is 21:1, a colour on itself 1:1.
    assert round(contrast("#000000", "#ffffff"), 2) == 21.0
    assert contrast("#1d70b8", "#1d70b8") == 1.0
    assert round(contrast("#1a56a8", "#00703c"), 2) == 1.15  # the link on the green panel, as it was


def test_every_text_and_background_pair_of_the_stylesheet_reads_at_aa():
    css = STYLESHEET.read_text()
    pairs = declared_pairs(css)
    assert any(what.startswith(".panel--done a") for what, _, _ in pairs)
    assert len(pairs) > 20
    failing = [(what, text, background, round(contrast(text, background), 2)) for what, text, background in pairs
               if contrast(text, background) < AA_TEXT]
    assert failing == []
