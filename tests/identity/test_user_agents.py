"""The sessions page's reading of User-Agent headers (identity.user_agents): real browsers' headers, the most
specific product first, and anything else as unknown, never an error."""

import pytest

from clinicrecords.identity.user_agents import LONGEST, describe, stored_user_agent

HEADERS = [
    ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 "
     "Safari/537.36", "Chrome 126", "Windows"),
    ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 "
     "Safari/537.36 Edg/126.0.2592.87", "Edge 126", "Windows"),
    ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 "
     "Safari/605.1.15", "Safari 17", "macOS"),
    ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:127.0) Gecko/20100101 Firefox/127.0", "Firefox 127", "macOS"),
    ("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox 128", "Linux"),
    ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 "
     "OPR/111.0.0.0", "Opera 111", "Linux"),
    ("Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 "
     "Safari/537.36", "Chrome 126", "ChromeOS"),
    ("Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 "
     "Chrome/121.0.0.0 Mobile Safari/537.36", "Samsung Internet 25", "Android"),
    ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.122 "
     "Mobile Safari/537.36", "Chrome 126", "Android"),
    ("Mozilla/5.0 (Android 14; Mobile; rv:127.0) Gecko/127.0 Firefox/127.0", "Firefox 127", "Android"),
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
     "Version/17.5 Mobile/15E148 Safari/604.1", "Safari 17", "iOS"),
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
     "CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1", "Chrome 126", "iOS"),
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
     "FxiOS/127.0 Mobile/15E148 Safari/605.1.15", "Firefox 127", "iOS"),
    ("Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 "
     "Mobile/15E148 Safari/604.1", "Safari 17", "iPadOS"),
    ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 "
     "Safari/537.36", "Chrome 126", "Linux"),
    ("curl/8.5.0", "curl 8", "an unknown system"),
    ("", "Unknown browser", "an unknown system"),
    (None, "Unknown browser", "an unknown system"),
    ("\x00\ud800 (Windows", "Unknown browser", "Windows"),
]


@pytest.mark.parametrize("header, browser, system", HEADERS, ids=[f"{b} on {s}" for _, b, s in HEADERS])
def test_real_headers_read_as_people_call_them(header, browser, system):
    described = describe(header)
    assert (described.name, described.system) == (browser, system)
    assert str(described) == f"{browser} on {system}"


def test_a_long_or_odd_header_is_kept_short_and_printable():
    assert stored_user_agent("Firefox/1 " + "x" * 2000) == "Firefox/1 " + "x" * (LONGEST - 10)
    assert stored_user_agent("a\x00b\nc\u00e9d") == "abcd"
    assert stored_user_agent("\x00") is None and stored_user_agent(None) is None
