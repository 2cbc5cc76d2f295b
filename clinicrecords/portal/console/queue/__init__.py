"""The clinic console's review queue: clinicians accept or decline what outside software sends, beside the
patient's chart, and mark automatically accepted items reviewed (docs/decisions/0033-clinic-console.md)."""

from clinicrecords.portal.console.queue.interfaces import IReviewQueue
from clinicrecords.portal.console.queue.resources import QueuePage
from clinicrecords.portal.console.queue.services import review_queue_factory
from clinicrecords.portal.console.resources import add_clinic_child


def includeme(config):
    config.register_service_factory(review_queue_factory, iface=IReviewQueue)
    add_clinic_child(config, "queue", QueuePage)
    config.scan(".views")
