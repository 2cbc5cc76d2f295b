"""Onboarding: a workspace's domain verification and business profile review (docs/verification.md)."""

from zope.interface import Interface

from clinicrecords.onboarding.dns_lookup import TXT_LOOKUP, TxtLookup
from clinicrecords.onboarding.interfaces import IBusinessProfile, IDomainVerification
from clinicrecords.onboarding.profiles import business_profile_factory
from clinicrecords.onboarding.verification import domain_verification_factory
from clinicrecords.settings import app_settings


def includeme(config):
    config.registry[TXT_LOOKUP] = TxtLookup.from_settings(app_settings(config.registry).verification)
    config.register_service_factory(domain_verification_factory, iface=IDomainVerification, context=Interface)
    config.register_service_factory(business_profile_factory, iface=IBusinessProfile, context=Interface)
    # Registers the periodic check in every process that loads the application (web, worker, CLI).
    config.scan(".tasks")
