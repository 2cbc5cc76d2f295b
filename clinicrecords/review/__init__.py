"""The review queue: /v1/clinics/{clinic_id}/submissions, automatic acceptance and clinicians' decisions.

Contexts that own a kind of item register it with `config.add_review_kind(ReviewKind())`.
"""

from pyramid.exceptions import ConfigurationError
from zope.interface import Interface

from clinicrecords.events.services import permit_submission_kind
from clinicrecords.review.interfaces import ISubmissionService
from clinicrecords.review.kinds import CHART_KINDS
from clinicrecords.review.representations import SubmissionOut, submission_json
from clinicrecords.review.resources import SubmissionCollection
from clinicrecords.review.services import submission_service_factory


def _add_review_kind(config, kind):
    if kind.resource_type not in CHART_KINDS:
        raise ConfigurationError(f"{kind.resource_type!r} is not a chart kind (clinicrecords.review.kinds)")
    config.registry["review.kinds"][kind.resource_type] = kind
    # The event announcing a decision is seen with the permission the kind is sent with.
    permit_submission_kind(kind.resource_type, kind.write_permission)


def _check_every_kind_registered(registry):
    missing = [name for name in CHART_KINDS if name not in registry["review.kinds"]]
    if missing:
        raise ConfigurationError(f"no review kind registered for {', '.join(missing)}")


def includeme(config):
    config.registry["review.kinds"] = {}
    config.add_directive("add_review_kind", _add_review_kind)
    # Once every context has registered its kinds: actions run after every include.
    config.action(("review", "every kind registered"), lambda: _check_every_kind_registered(config.registry))
    config.add_clinic_collection("submissions", SubmissionCollection)
    config.register_service_factory(submission_service_factory, iface=ISubmissionService, context=Interface)
    config.add_representation("submission", plain=submission_json, schema=SubmissionOut)
    config.scan(".views")
