"""Insurance: payers, coverages, claims, insurer links and payment advices.

/v1/clinics/{clinic_id}/payers, /coverages and /insurance/payment-advices.
"""

from zope.interface import Interface

from clinicrecords.insurance.advices import payment_advice_service_factory
from clinicrecords.insurance.coverages import coverage_service_factory
from clinicrecords.insurance.interfaces import ICoverages, IPayers, IPaymentAdvices
from clinicrecords.insurance.payers import payer_service_factory
from clinicrecords.insurance.representations import (
    coverage_fhir,
    coverage_json,
    payer_fhir,
    payer_json,
    payment_advice_json,
)
from clinicrecords.insurance.resources import CoverageCollection, Insurance, PayerCollection
from clinicrecords.insurance.schemas import CoverageOut, PayerOut, PaymentAdviceOut
from clinicrecords.insurance.seed import seed_insurance
from clinicrecords.sandbox.interfaces import add_sandbox_seeder


def includeme(config):
    config.add_clinic_collection("payers", PayerCollection)
    config.add_clinic_collection("coverages", CoverageCollection)
    config.add_clinic_collection("insurance", Insurance)
    # context=Interface: each factory is handed the resource it is asked from and finds the clinic above it.
    config.register_service_factory(payer_service_factory, iface=IPayers, context=Interface)
    config.register_service_factory(coverage_service_factory, iface=ICoverages, context=Interface)
    config.register_service_factory(payment_advice_service_factory, iface=IPaymentAdvices, context=Interface)
    config.add_representation("payer", plain=payer_json, fhir=payer_fhir, schema=PayerOut)
    config.add_representation("coverage", plain=coverage_json, fhir=coverage_fhir, schema=CoverageOut)
    config.add_representation("payment_advice", plain=payment_advice_json, schema=PaymentAdviceOut)
    add_sandbox_seeder(config, seed_insurance)
    config.scan(".views")
