import contextlib
import uuid

from clinicrecords.onboarding.dns_lookup import TxtLookup, parse_nameservers
from clinicrecords.onboarding.profiles import BusinessProfileService
from clinicrecords.onboarding.verification import DomainVerificationService
from clinicrecords.publishing import request_publisher


def unique_domain(parent="example"):
    return f"ws-{uuid.uuid4().hex[:12]}.{parent}"


@contextlib.contextmanager
def domain_service(world, nameservers, timeout=0.5):
    """The service on a committed transaction of its own, asking the given test nameservers."""
    with world.request() as request:
        yield DomainVerificationService(request.db, TxtLookup(parse_nameservers(nameservers), timeout), request.tm,
                                        request_publisher(request))


@contextlib.contextmanager
def profile_service(world):
    with world.request() as request:
        yield BusinessProfileService(request.db, request_publisher(request))


def workspace_verified(world, workspace_id):
    from clinicrecords.access.services import workspace_is_verified

    with world.db() as db:
        return workspace_is_verified(db, workspace_id)
