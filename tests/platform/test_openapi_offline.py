"""`scripts/openapi` assembles the whole application offline (no database, no mail server): every setting a
context requires at start-up must be among its offline settings."""

from pathlib import Path

from clinicrecords.openapi_file import main
from tests.common import task_queue

ROOT = Path(__file__).resolve().parents[2]


def test_the_document_is_written_offline_and_equals_the_committed_one(app, settings, tmp_path, capsys):
    with task_queue.kept():  # building the offline application configures the process's queue for it
        main([str(tmp_path / "openapi.json")])
    assert capsys.readouterr().out.strip() == str(tmp_path / "openapi.json")
    assert (tmp_path / "openapi.json").read_text() == (ROOT / "docs" / "openapi.json").read_text()
