"""docs/sandbox.md shows what `GET /v1/connections` answers a fresh workspace's test key."""

import json
import re
from pathlib import Path

SANDBOX_DOC = Path(__file__).resolve().parents[2] / "docs" / "sandbox.md"
PLACEHOLDER = re.compile(r"<[^>]+>")


def _shown_answer():
    [block] = re.findall(r"```json\n(.*?)\n```", SANDBOX_DOC.read_text(encoding="utf-8"), re.S)
    return json.loads(block)


def _matches(shown, actual, where="$"):
    """Equal, where `<...>` in a shown string stands for any text."""
    if isinstance(shown, dict):
        assert isinstance(actual, dict) and shown.keys() == actual.keys(), (where, shown.keys(), actual)
        for name in shown:
            _matches(shown[name], actual[name], f"{where}.{name}")
    elif isinstance(shown, list):
        assert isinstance(actual, list) and len(shown) == len(actual), (where, shown, actual)
        for index, (one, other) in enumerate(zip(shown, actual)):
            _matches(one, other, f"{where}[{index}]")
    elif isinstance(shown, str) and PLACEHOLDER.search(shown):
        pattern = "".join(".+" if PLACEHOLDER.fullmatch(part) else re.escape(part)
                          for part in re.split(r"(<[^>]+>)", shown))
        assert isinstance(actual, str) and re.fullmatch(pattern, actual), (where, shown, actual)
    else:
        assert shown == actual, (where, shown, actual)


def test_the_documented_connections_answer_is_what_a_test_key_gets(world, testapp):
    workspace_id, sandbox_id = world.workspace(name="Doc Check Health")
    key = world.key(workspace_id=workspace_id, mode="test")
    answer = testapp.get("/v1/connections", headers={"Authorization": f"Bearer {key}"}).json
    _matches(_shown_answer(), answer)
    assert answer["data"][0]["clinic_id"] == str(sandbox_id)
    assert answer["data"][0]["display_name"] == "Doc Check Health sandbox clinic"
