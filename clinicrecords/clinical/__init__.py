"""Clinical items outside software may propose: allergies, conditions, reported medicines (medication
statements) and referrals. Sends become submissions of the review queue (clinicrecords.review)."""

from zope.interface import Interface

from clinicrecords.clinical import interfaces
from clinicrecords.clinical.terminology import RXNORM, RxNormList, load_icd10
from clinicrecords.clinical.kinds import KINDS
from clinicrecords.clinical.seed import seed_clinical
from clinicrecords.clinical.services import item_service_factory, proposal_service_factory
from clinicrecords.review.interfaces import add_review_kind
from clinicrecords.sandbox.interfaces import add_sandbox_seeder
from clinicrecords.settings import app_settings
from clinicrecords.warm_ups import add_warm_up


def includeme(config):
    config.registry[RXNORM] = RxNormList(app_settings(config.registry).clinical.rxnorm_extra_file)
    for kind in KINDS:
        config.add_clinic_collection(kind.collection_name, kind.collection)
        config.register_service_factory(item_service_factory(kind.model), iface=interfaces.IChartItems,
                                        name=kind.resource_type, context=Interface)
        config.add_representation(kind.resource_type, **kind.representation)
        add_review_kind(config, kind)
    config.register_service_factory(proposal_service_factory, iface=interfaces.IProposalService, context=Interface)
    add_sandbox_seeder(config, seed_clinical)
    add_warm_up(config, load_icd10)  # the first condition or referral sent would wait for it otherwise
    config.scan(".views")
