"""What the sessions page and the new-sign-in notice say of a browser: its name, major version and system, read
from the User-Agent header. A page for people, never a decision: an unknown or forged header reads as
"Unknown browser" on "an unknown system", and nothing relies on it.

Our own small reader rather than a library: the page names about a dozen browsers and systems, and the
libraries' regular-expression databases (ua-parser's, some thousand patterns) are larger than the question.
"""

import re
from dataclasses import dataclass

UNKNOWN_BROWSER = "Unknown browser"
UNKNOWN_SYSTEM = "an unknown system"
# A header longer than this is cut before it is read or stored (the sessions table keeps 512 characters).
LONGEST = 512

# (name, the product token whose version is the browser's), most specific first: Edge, Opera and Samsung
# Internet also say "Chrome/" and "Safari/", Chrome says "Safari/", iOS's browsers say "Safari/".
_BROWSERS = (
    ("Edge", r"Edg(?:e|A|iOS)?/(\d+)"),
    ("Opera", r"(?:OPR|OPT|Opera)/(\d+)"),
    ("Samsung Internet", r"SamsungBrowser/(\d+)"),
    ("Firefox", r"(?:Firefox|FxiOS)/(\d+)"),
    ("Chromium", r"Chromium/(\d+)"),
    ("Chrome", r"(?:HeadlessChrome|Chrome|CriOS)/(\d+)"),
    ("Safari", r"Version/(\d+)[.\d]* (?:Mobile/\S+ )?Safari/"),
    ("curl", r"^curl/(\d+)"),
)
_BROWSER_PATTERNS = tuple((name, re.compile(pattern)) for name, pattern in _BROWSERS)

# (system, a pattern of the platform part), most specific first: iPads and Android also say "like Mac OS X"
# and "Linux", ChromeOS says "Linux" too.
_SYSTEMS = (
    ("iPadOS", r"\biPad\b"),
    ("iOS", r"\b(?:iPhone|iPod)\b"),
    ("Android", r"\bAndroid\b"),
    ("ChromeOS", r"\bCrOS\b"),
    ("Windows", r"\bWindows\b"),
    ("macOS", r"\b(?:Macintosh|Mac OS X)\b"),
    ("Linux", r"\bLinux\b"),
)
_SYSTEM_PATTERNS = tuple((name, re.compile(pattern)) for name, pattern in _SYSTEMS)


@dataclass(frozen=True)
class Browser:
    """A browser as people call it: `name` ("Firefox 128"), `system` ("Windows")."""

    name: str
    system: str

    def __str__(self):
        return f"{self.name} on {self.system}"


def describe(user_agent):
    """The `Browser` a User-Agent header names; unknown parts read as such."""
    text = (user_agent or "")[:LONGEST]
    name = UNKNOWN_BROWSER
    for browser, pattern in _BROWSER_PATTERNS:
        found = pattern.search(text)
        if found:
            name = f"{browser} {found.group(1)}"
            break
    system = next((system for system, pattern in _SYSTEM_PATTERNS if pattern.search(text)), UNKNOWN_SYSTEM)
    return Browser(name, system)


def stored_user_agent(user_agent):
    """The header as the sessions table keeps it: at most LONGEST characters, printable ASCII only."""
    return "".join(c for c in (user_agent or "")[:LONGEST] if " " <= c <= "~") or None
