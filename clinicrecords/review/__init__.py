"""The review queue: /v1/clinics/{clinic_id}/submissions, automatic acceptance and clinicians' decisions.

Contexts that own a kind of item register it with `config.add_review_kind(ReviewKind())`.
"""

from zope.interface import Interface

from clinicrecords.review.interfaces import ISubmissionService
from clinicrecords.review.representations import SubmissionOut, submission_json
from clinicrecords.review.resources import SubmissionCollection
from clinicrecords.review.services import submission_service_factory


def _add_review_kind(config, kind):
    config.registry["review.kinds"][kind.resource_type] = kind


def includeme(config):
    config.registry["review.kinds"] = {}
    config.add_directive("add_review_kind", _add_review_kind)
    config.add_clinic_collection("submissions", SubmissionCollection)
    config.register_service_factory(submission_service_factory, iface=ISubmissionService, context=Interface)
    config.add_representation("submission", plain=submission_json, schema=SubmissionOut)
    config.scan(".views")
