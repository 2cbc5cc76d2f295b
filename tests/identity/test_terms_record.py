"""API Terms acceptance is stored once (decision 0087): the identity context's record, which the API key's
statement reads as a subquery (no flag on the workspace any more), so recording an acceptance opens live
access on the key's next call (the key cache follows the record: it moves the reach version), and the
operator's `workspace create|set --terms-accepted` and `workspace list` read and write that one record."""

import uuid

from sqlalchemy import inspect, select

from clinicrecords.access.models import Workspace
from clinicrecords.identity.models import TermsAcceptance
from tests.common.cli import ok


def _bearer(key):
    return {"Authorization": f"Bearer {key}"}


def _reach(testapp, setup, status):
    return testapp.get(f"/v1/clinics/{setup.clinic_id}/no-such-collection", headers=_bearer(setup.key),
                       status=status)


def test_the_workspace_has_no_terms_flag_of_its_own(engine):
    columns = {column["name"] for column in inspect(engine).get_columns("workspaces", schema="control")}
    assert "terms_accepted" not in columns and not hasattr(Workspace, "terms_accepted")


def test_an_acceptance_recorded_opens_live_access_on_the_keys_next_call(world, testapp):
    setup = world.connected(terms_accepted=False)
    assert _reach(testapp, setup, 403).json["code"] == "workspace_plan_required"
    assert _reach(testapp, setup, 403).json["code"] == "workspace_plan_required"  # now from the key cache
    world.accept_terms(setup.workspace_id)
    _reach(testapp, setup, 404)  # reached: an unknown collection inside the clinic


def test_an_acceptance_removed_closes_it_again(world, testapp, engine):
    setup = world.connected()
    _reach(testapp, setup, 404)
    with engine.begin() as connection:
        connection.execute(TermsAcceptance.__table__.delete().where(
            TermsAcceptance.workspace_id == setup.workspace_id))
    assert _reach(testapp, setup, 403).json["code"] == "workspace_plan_required"


def test_the_operators_terms_accepted_records_the_current_version_by_operator(engine):
    workspace_id = ok("workspace", "create", "--name", "Scripted Health", "--verified", "--paid",
                      "--terms-accepted")["workspace_id"]
    later = ok("workspace", "create", "--name", "Later Health")["workspace_id"]
    ok("workspace", "set", later, "--terms-accepted")
    ok("workspace", "set", later, "--terms-accepted")  # again: recorded once
    with engine.connect() as connection:
        rows = connection.execute(select(TermsAcceptance.workspace_id, TermsAcceptance.version,
                                         TermsAcceptance.account_id, TermsAcceptance.accepted_by_name)
                                  .where(TermsAcceptance.workspace_id.in_([uuid.UUID(workspace_id),
                                                                           uuid.UUID(later)]))).all()
    assert sorted(map(tuple, rows)) == sorted([(uuid.UUID(workspace_id), "2026-01", None, "operator"),
                                               (uuid.UUID(later), "2026-01", None, "operator")])
    listed = {w["workspace_id"]: w["terms_accepted"] for w in ok("workspace", "list")["workspaces"]}
    assert listed[workspace_id] is True and listed[later] is True
    none = ok("workspace", "create", "--name", "No Terms Health")["workspace_id"]
    assert {w["workspace_id"]: w["terms_accepted"] for w in ok("workspace", "list")["workspaces"]}[none] is False


AGREEMENT = ["--version", "2026-01", "--accepted-by", "Dr Ada Byron, CTO", "--reference", "MSA-42 signed 2026-11-20"]


def test_an_operator_records_an_acceptance_made_outside_the_portal(app, engine):
    from tests.portal.helpers import with_workspace

    client, workspace_id = with_workspace(app)
    printed = ok("workspace", "terms", "record", "--workspace", workspace_id, *AGREEMENT)
    assert set(printed) == {"workspace_id", "version", "accepted_by", "reference", "accepted_at"}
    assert (printed["workspace_id"], printed["version"], printed["accepted_by"], printed["reference"]) == (
        workspace_id, "2026-01", "Dr Ada Byron, CTO", "MSA-42 signed 2026-11-20")
    listed = {w["workspace_id"]: w["terms_accepted"] for w in ok("workspace", "list")["workspaces"]}
    assert listed[workspace_id] is True
    with engine.connect() as connection:
        row = connection.execute(select(TermsAcceptance).where(
            TermsAcceptance.workspace_id == uuid.UUID(workspace_id))).one()
    assert (row.account_id, row.accepted_by_name, row.reference) == (None, "Dr Ada Byron, CTO",
                                                                     "MSA-42 signed 2026-11-20")
    assert row.accepted_at.isoformat().startswith(printed["accepted_at"][:19])
    page = client.get(f"/portal/workspaces/{workspace_id}/terms").text
    assert "outside the portal: by Dr Ada Byron, CTO" in page and "MSA-42 signed 2026-11-20" in page
    activity = client.get(f"/portal/workspaces/{workspace_id}/activity").text
    assert "Recorded that Dr Ada Byron, CTO accepted the API Terms of Use" in activity


def test_a_bad_terms_record_is_refused_and_writes_nothing(engine):
    from tests.common.cli import refused

    workspace_id = ok("workspace", "create", "--name", "Unsigned Health")["workspace_id"]
    unknown = str(uuid.uuid4())
    cases = {
        "no API Terms version 1999-01": ["--workspace", workspace_id, "--version", "1999-01", "--accepted-by", "A",
                                         "--reference", "R"],
        "--accepted-by must be": ["--workspace", workspace_id, "--version", "2026-01", "--accepted-by", " ",
                                  "--reference", "R"],
        "--reference must be": ["--workspace", workspace_id, "--version", "2026-01", "--accepted-by", "A",
                                "--reference", ""],
        f"no workspace {unknown}": ["--workspace", unknown, *AGREEMENT],
    }
    for message, arguments in cases.items():
        assert message in refused("workspace", "terms", "record", *arguments)
    with engine.connect() as connection:
        assert connection.execute(select(TermsAcceptance).where(
            TermsAcceptance.workspace_id == uuid.UUID(workspace_id))).all() == []
