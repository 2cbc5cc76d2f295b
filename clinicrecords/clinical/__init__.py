"""Clinical items outside software may propose: allergies, conditions, reported medicines (medication
statements) and referrals. Sends become submissions of the review queue (clinicrecords.review)."""

from zope.interface import Interface

from clinicrecords.clinical import interfaces
from clinicrecords.clinical.terminology import RxNormList
from clinicrecords.clinical.kinds import KINDS
from clinicrecords.clinical.seed import seed_clinical
from clinicrecords.clinical.services import item_service_factory, proposal_service_factory


def includeme(config):
    settings = config.get_settings()
    config.registry["clinical.rxnorm"] = RxNormList(settings.get("clinical.rxnorm_extra_file"))
    for kind in KINDS:
        config.add_clinic_collection(kind.collection_name, kind.collection)
        config.register_service_factory(item_service_factory(kind.model), iface=kind.collection.service,
                                        context=Interface)
        config.add_representation(kind.resource_type, **kind.representation)
        config.add_review_kind(kind)
    config.register_service_factory(proposal_service_factory, iface=interfaces.IProposalService, context=Interface)
    config.add_sandbox_seeder(seed_clinical)
    config.scan(".views")
