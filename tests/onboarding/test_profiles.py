"""The business profile service: field rules, the verified-domain precondition, and review."""

import pytest

from clinicrecords.errors import InvalidInput
from clinicrecords.onboarding.errors import ProfileInvalid
from clinicrecords.onboarding.profiles import validate_profile
from tests.onboarding.helpers import profile_service

GOOD = {"legal_name": "Acme Health Ltd", "website": "https://acme-health.example", "country": "US",
        "contact_email": "dev@acme-health.example", "intended_use": "Reminders.\nBookings.\tAnd more."}


def test_good_fields_are_cleaned():
    cleaned = validate_profile(**{**GOOD, "legal_name": "  Acme Health Ltd ", "country": " us",
                                  "contact_email": "Dev.Team+api@Bücher.example"})
    assert cleaned["legal_name"] == "Acme Health Ltd"
    assert cleaned["country"] == "US"
    assert cleaned["contact_email"] == "Dev.Team+api@xn--bcher-kva.example"


@pytest.mark.parametrize("field, value", [
    ("legal_name", ""), ("legal_name", "x" * 201), ("legal_name", "Acme\nHealth"),
    ("website", "acme.example"), ("website", "javascript:alert(1)"), ("website", "https://192.0.2.1/"),
    ("website", "https://user:pw@acme.example/"), ("website", "https://acme.example:port/"),
    ("website", "https://"), ("country", "UK"), ("country", "USA"), ("country", ""),
    ("contact_email", "dev"), ("contact_email", "dev@localhost"), ("contact_email", "a b@acme.example"),
    ("contact_email", ".dev@acme.example"), ("contact_email", "dev@acme.example x"),
    ("intended_use", " "), ("intended_use", "x" * 2001), ("intended_use", "null\x00byte"),
    ("intended_use", "x"), ("intended_use", "Appointments."), ("intended_use", "We do apps"),
])
def test_each_bad_field_gets_its_own_message(field, value):
    with pytest.raises(ProfileInvalid) as caught:
        validate_profile(**{**GOOD, field: value})
    assert list(caught.value.errors) == [field]


def test_only_a_verified_workspace_submits(world):
    workspace_id, _ = world.workspace(verified=False)
    with pytest.raises(InvalidInput, match="must be verified"):
        with profile_service(world) as profiles:
            profiles.submit(workspace_id, **GOOD)
    with profile_service(world) as profiles:
        assert profiles.status(workspace_id) == "none" and profiles.profile(workspace_id) is None


def test_a_changed_approved_profile_is_reviewed_again(world):
    workspace_id, _ = world.workspace(verified=True)
    with profile_service(world) as profiles:
        profiles.submit(workspace_id, **GOOD)
        approved = profiles.review(workspace_id, approve=True, reason=" Looks right ")
        assert approved.review_reason == "Looks right"
        assert profiles.status(workspace_id) == "approved"
        again = profiles.submit(workspace_id, **{**GOOD, "legal_name": "Acme Health Group Ltd"})
        assert (again.status, again.legal_name, again.reviewed_at, again.review_reason) == (
            "submitted", "Acme Health Group Ltd", None, None)


@pytest.mark.commits  # submissions race from threads
def test_two_submissions_at_once_end_as_one_whole_profile(world):
    import threading

    workspace_id, _ = world.workspace(verified=True)
    names = [f"Acme Health {n} Ltd" for n in range(4)]
    barrier, errors = threading.Barrier(len(names)), []

    def submit(name):
        try:
            with profile_service(world) as profiles:
                barrier.wait(5)
                profiles.submit(workspace_id, **{**GOOD, "legal_name": name})
        except Exception as exc:  # collected: the assertion below names it
            errors.append(exc)

    threads = [threading.Thread(target=submit, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert errors == []
    with profile_service(world) as profiles:
        profile = profiles.profile(workspace_id)
    assert (profile.status, profile.legal_name in names) == ("submitted", True)


@pytest.mark.parametrize("website, on_domain", [
    ("https://acme.example", True), ("https://www.acme.example/about", True), ("http://ACME.example:8080/", True),
    ("https://bücher.example", False), ("https://notacme.example", False), ("https://acme.example.evil.test", False),
])
def test_a_website_is_on_the_verified_domain_or_a_subdomain(website, on_domain):
    """Decision 0048: the portal warns when it is not (allowed: the reviewer asks why)."""
    from clinicrecords.onboarding.domains import website_on_domain

    assert website_on_domain(website, "acme.example") is on_domain
    assert website_on_domain("https://shop.bücher.example", "xn--bcher-kva.example")
