"""`workspace domain ...` and `workspace profile ...`: one JSON object and exit 0, or exit 2 changing
nothing."""

import datetime
import uuid

import pytest
from clinicrecords.onboarding.dns_lookup import ENV_NAMESERVERS
from clinicrecords.onboarding.models import BusinessProfile, WorkspaceDomain
from tests.common.cli import ok, refused, row_counts
from tests.onboarding.dns_server import authoritative_server
from tests.onboarding.helpers import unique_domain, workspace_verified

PROFILE = ("--legal-name", "Acme Health Ltd", "--website", "https://acme-health.example/about",
           "--country", "gb", "--contact-email", "dev@Acme-Health.example",
           "--intended-use", "Patients book appointments from our app.")


@pytest.fixture
def dns(monkeypatch):
    """The CLI's application asks this server (the environment variable is read when it starts)."""
    with authoritative_server() as (zone, address):
        monkeypatch.setenv(ENV_NAMESERVERS, address)
        yield zone


@pytest.fixture
def counts(engine):
    return lambda: row_counts(engine, WorkspaceDomain, BusinessProfile)


def _parse_time(text):
    return datetime.datetime.fromisoformat(text)


def test_domain_set_check_and_show(world, dns):
    workspace_id, _ = world.workspace(verified=False)
    domain = unique_domain()
    before = datetime.datetime.now(datetime.UTC)
    claimed = ok("workspace", "domain", "set", "--workspace", workspace_id, "--domain", domain.upper())
    assert (claimed["workspace_id"], claimed["domain"]) == (str(workspace_id), domain)
    assert claimed["state"] == "pending"
    assert claimed["txt_host"] == f"_clinicrecords-verify.{domain}"
    assert before + datetime.timedelta(minutes=5) <= _parse_time(claimed["next_check_at"]) \
        <= datetime.datetime.now(datetime.UTC) + datetime.timedelta(minutes=5)

    checked = ok("workspace", "domain", "check", "--workspace", workspace_id)
    assert (checked["state"], checked["last_result"]) == ("pending", "nxdomain")
    dns.publish(claimed["txt_host"], claimed["txt_value"])
    checked = ok("workspace", "domain", "check", "--workspace", workspace_id)
    assert (checked["state"], checked["last_result"]) == ("verified", "found")
    assert workspace_verified(world, workspace_id)
    assert ok("workspace", "domain", "show", "--workspace", workspace_id) == checked


@pytest.mark.parametrize("argv", [
    ("workspace", "domain", "set", "--workspace", "{ws}", "--domain", "192.0.2.1"),
    ("workspace", "domain", "set", "--workspace", "{ws}", "--domain", "https://example.com/x"),
    ("workspace", "domain", "set", "--workspace", "{ws}", "--domain", "localhost"),
    ("workspace", "domain", "set", "--workspace", "{ws}"),
    ("workspace", "domain", "set", "--workspace", str(uuid.uuid4()), "--domain", "example.com"),
    ("workspace", "domain", "set", "--workspace", "not-a-uuid", "--domain", "example.com"),
    ("workspace", "domain", "check", "--workspace", "{ws}"),  # no domain yet
    ("workspace", "domain", "check", "--workspace", str(uuid.uuid4())),
    ("workspace", "domain", "show", "--workspace", "{ws}"),
    ("workspace", "profile", "submit", "--workspace", "{ws}", *PROFILE),  # not verified
    ("workspace", "profile", "review", "--workspace", "{ws}", "--approve"),  # nothing submitted
    ("workspace", "profile", "review", "--workspace", "{ws}", "--approve", "--reject", "--reason", "x"),
    ("workspace", "profile", "review", "--workspace", "{ws}"),
])
def test_bad_input_exits_2_and_changes_nothing(world, counts, argv):
    workspace_id, _ = world.workspace(verified=False)
    before = counts()
    refused(*(arg.format(ws=workspace_id) for arg in argv))
    assert counts() == before


def test_profile_submit_review_and_show(world):
    workspace_id, _ = world.workspace(verified=True)  # `workspace create --verified` still verifies
    assert ok("workspace", "profile", "show", "--workspace", workspace_id) == {
        "workspace_id": str(workspace_id), "status": "none"}
    submitted = ok("workspace", "profile", "submit", "--workspace", workspace_id, *PROFILE)
    assert {key: submitted[key] for key in ("status", "country", "contact_email", "reviewed_at")} == {
        "status": "submitted", "country": "GB", "contact_email": "dev@acme-health.example",
        "reviewed_at": None}

    refused("workspace", "profile", "review", "--workspace", workspace_id, "--reject")  # a reason is needed
    rejected = ok("workspace", "profile", "review", "--workspace", workspace_id, "--reject",
                  "--reason", "The website does not name the company.")
    assert rejected["status"] == "rejected"
    assert rejected["review_reason"] == "The website does not name the company."
    err = refused("workspace", "profile", "review", "--workspace", workspace_id, "--approve")
    assert "only a submitted profile" in err

    ok("workspace", "profile", "submit", "--workspace", workspace_id, *PROFILE)
    approved = ok("workspace", "profile", "review", "--workspace", workspace_id, "--approve")
    assert (approved["status"], approved["review_reason"]) == ("approved", None)
    assert ok("workspace", "profile", "show", "--workspace", workspace_id) == approved


def test_profile_refusals_name_each_wrong_field(world, counts):
    workspace_id, _ = world.workspace(verified=True)
    before = counts()
    err = refused("workspace", "profile", "submit", "--workspace", workspace_id, "--legal-name", " ",
                  "--website", "ftp://acme.example", "--country", "XX", "--contact-email", "nobody",
                  "--intended-use", "ok")
    for field in ("legal_name", "website", "country", "contact_email", "intended_use"):
        assert field in err
    assert "a sentence at least" in err  # decision 0048: a word is not an intended use
    assert counts() == before


def test_the_workspace_commands_of_two_contexts_share_one_group():
    from clinicrecords.cli import build_parser

    parser = build_parser()
    for argv in (["x.ini", "workspace", "create", "--name", "A"],
                 ["x.ini", "workspace", "domain", "check", "--workspace", str(uuid.uuid4())],
                 ["x.ini", "workspace", "profile", "review", "--workspace", str(uuid.uuid4()), "--approve"]):
        assert callable(parser.parse_args(argv).handler)


def test_the_demo_workspace_has_an_approved_profile():
    from clinicrecords.sandbox.cli import DEMO_WORKSPACE_ID

    ok("demo")
    profile = ok("workspace", "profile", "show", "--workspace", DEMO_WORKSPACE_ID)
    assert (profile["status"], profile["legal_name"]) == ("approved", "Demo Health Apps Ltd")
    ok("demo")  # a second run keeps it
    assert ok("workspace", "profile", "show", "--workspace", DEMO_WORKSPACE_ID) == profile
