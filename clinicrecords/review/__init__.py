"""The review queue: /v1/clinics/{clinic_id}/submissions, automatic acceptance and clinicians' decisions.

Contexts that own a kind of item register it with `add_review_kind(config, ReviewKind())`
(clinicrecords.review.interfaces).
"""

from zope.interface import Interface

from clinicrecords.review.interfaces import ISubmissionService
from clinicrecords.review.kinds import check_every_kind_registered
from clinicrecords.review.representations import SubmissionOut, submission_json
from clinicrecords.review.resources import SubmissionCollection
from clinicrecords.review.services import submission_service_factory


def includeme(config):
    # Once every context has registered its kinds: actions run after every include.
    config.action(("review", "every kind registered"), lambda: check_every_kind_registered(config.registry))
    config.add_clinic_collection("submissions", SubmissionCollection)
    config.register_service_factory(submission_service_factory, iface=ISubmissionService, context=Interface)
    config.add_representation("submission", plain=submission_json, schema=SubmissionOut)
    config.scan(".views")
