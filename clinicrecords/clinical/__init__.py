"""Clinical items outside software may propose: allergies, conditions, reported medicines (medication
statements) and referrals. Sends become submissions of the review queue (clinicrecords.review)."""

from zope.interface import Interface

from clinicrecords.clinical import interfaces, resources, schemas
from clinicrecords.clinical import representations as rep
from clinicrecords.clinical.terminology import RXNORM, RxNormList
from clinicrecords.clinical.kinds import KINDS
from clinicrecords.clinical.seed import seed_clinical
from clinicrecords.clinical.services import item_service_factory, proposal_service_factory
from clinicrecords.review.interfaces import add_review_kind
from clinicrecords.sandbox.interfaces import add_sandbox_seeder
from clinicrecords.settings import app_settings


def includeme(config):
    config.registry[RXNORM] = RxNormList(app_settings(config.registry).clinical.rxnorm_extra_file)
    for name, collection in (("allergies", resources.AllergyCollection),
                             ("conditions", resources.ConditionCollection),
                             ("medication-statements", resources.MedicationStatementCollection),
                             ("referrals", resources.ReferralCollection)):
        config.add_clinic_collection(name, collection)
    for kind in ("allergy", "condition", "medication_statement", "referral"):
        config.register_service_factory(item_service_factory(kind), iface=interfaces.IChartItems, name=kind,
                                        context=Interface)
    config.register_service_factory(proposal_service_factory, iface=interfaces.IProposalService, context=Interface)
    config.add_representation("allergy", plain=rep.allergy_json, fhir=rep.allergy_fhir, schema=schemas.AllergyOut)
    config.add_representation("condition", plain=rep.condition_json, fhir=rep.condition_fhir,
                              schema=schemas.ConditionOut)
    config.add_representation("medication_statement", plain=rep.medication_statement_json,
                              fhir=rep.medication_statement_fhir, schema=schemas.MedicationStatementOut)
    config.add_representation("referral", plain=rep.referral_json, fhir=rep.referral_fhir,
                              schema=schemas.ReferralOut)
    for kind in KINDS:
        add_review_kind(config, kind)
    add_sandbox_seeder(config, seed_clinical)
    config.scan(".views")
