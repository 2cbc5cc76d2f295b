"""Every permission the application knows, in one registry: the API's (a key or connection grants a subset of
these) and the portal's roles. Who holds each is clinicrecords.access.permission_map's."""

from enum import StrEnum


class Permission(StrEnum):
    AllergiesRead = "allergies:read"
    AllergiesWrite = "allergies:write"
    AppointmentsRead = "appointments:read"
    AppointmentsWrite = "appointments:write"
    CareProvidersRead = "care_providers:read"
    CareProvidersWrite = "care_providers:write"
    ConditionsRead = "conditions:read"
    ConditionsWrite = "conditions:write"
    CoverageRead = "coverage:read"
    CoverageWrite = "coverage:write"
    DispensingRead = "dispensing:read"
    EncountersRead = "encounters:read"
    EncountersWrite = "encounters:write"
    InsuranceRemittancesWrite = "insurance.remittances:write"
    InventoryAvailabilityRead = "inventory.availability:read"
    InventoryItemsRead = "inventory.items:read"
    InventoryStockRead = "inventory.stock:read"
    InventoryStockWrite = "inventory.stock:write"
    ListingAvailabilityRead = "listing.availability:read"
    ListingProfileRead = "listing.profile:read"
    MedicationsRead = "medications:read"
    MedicationsWrite = "medications:write"
    PatientsRead = "patients:read"
    PatientsWrite = "patients:write"
    PayersRead = "payers:read"
    ProvidersRead = "providers:read"
    ReferralsRead = "referrals:read"
    ReferralsWrite = "referrals:write"


ALL_PERMISSIONS = frozenset(p.value for p in Permission)

# What each permission lets the software do, in the words clinic staff read when they decide (the console's
# connection pages), partners read when they ask (the portal) and the reference shows (the OpenAPI document).
PERMISSION_DESCRIPTIONS = {
    Permission.AllergiesRead: "See the allergies on patients' charts",
    Permission.AllergiesWrite: "Send allergies, which a clinician reviews before they reach a chart",
    Permission.AppointmentsRead: "See clinicians' free slots and the appointments booked",
    Permission.AppointmentsWrite: "Book appointments, and cancel the ones it booked",
    Permission.CareProvidersRead: "See patients' outside care providers (their other doctors and carers)",
    Permission.CareProvidersWrite: "Add outside care providers, and change or remove the ones it added",
    Permission.ConditionsRead: "See the conditions (diagnoses) on patients' charts",
    Permission.ConditionsWrite: "Send conditions, which a clinician reviews before they reach a chart",
    Permission.CoverageRead: "See patients' insurance coverage",
    Permission.CoverageWrite: "Add and change patients' insurance coverage",
    Permission.DispensingRead: "See dispensing flags of the patients enrolled with it",
    Permission.EncountersRead: "See visits (type, dates, reason, clinician), never notes or billing",
    Permission.EncountersWrite: "Open draft visits and change the ones it opened; it never signs, orders or bills",
    Permission.InsuranceRemittancesWrite: "Send payment advices, as the insurer this clinic linked to it",
    Permission.InventoryAvailabilityRead: "See whether stock is in, low or out (bands, never quantities)",
    Permission.InventoryItemsRead: "See the clinic's inventory items",
    Permission.InventoryStockRead: "See exact stock quantities",
    Permission.InventoryStockWrite: "Record stock movements and till counts, and delete unused items",
    Permission.ListingAvailabilityRead: "Search the medicines a listed pharmacy has, as bands",
    Permission.ListingProfileRead: "See a listed pharmacy's public profile",
    Permission.MedicationsRead: "See reported medicines and prescriptions",
    Permission.MedicationsWrite: "Send reported medicines, which a clinician reviews before they reach a chart",
    Permission.PatientsRead: "See patients' details: names, birth dates and contact details",
    Permission.PatientsWrite: "Add patients and change their details",
    Permission.PayersRead: "See the insurers the clinic works with",
    Permission.ProvidersRead: "See the clinic's clinicians: names, roles, specialties and licences",
    Permission.ReferralsRead: "See referrals",
    Permission.ReferralsWrite: "Send referrals, which a clinician reviews before they reach a chart",
}


def describe_permission(permission):
    """The permission in plain words (a code it does not know stays as it is)."""
    return PERMISSION_DESCRIPTIONS.get(permission, str(permission))


class DerivedPermission(StrEnum):
    """Not grantable: the permission map derives them from granted permissions, as the resource asked says
    (`confers`); never in a key's scopes."""

    # A submission is read with the read or write permission of the kind sent; changed or withdrawn with its
    # write one.
    SubmissionsOfKind = "derived:submissions_of_kind"
    SubmissionWithdraw = "derived:submission_withdraw"


def parse_scopes(text):
    """`a:read,b:write` → a frozenset of known permissions; ValueError naming any unknown one."""
    scopes = {part.strip() for part in text.split(",") if part.strip()}
    unknown = sorted(scopes - ALL_PERMISSIONS)
    if unknown:
        raise ValueError(f"unknown permission(s): {', '.join(unknown)}")
    if not scopes:
        raise ValueError("at least one permission is needed")
    return frozenset(scopes)


# Pseudo-permissions, never granted as scopes: the permission map gives them to every key that got that far.
# KEY_HOLDER: any valid key (/v1/me, /v1/connections). EVENTS_FEED: any key that reached the clinic (spec: no
# single permission is needed for GET /v1/clinics/{clinic_id}/events).
KEY_HOLDER = "key_holder"
EVENTS_FEED = "events:feed"
# BULK_EXPORT: any key that reached the clinic may use its FHIR base (metadata, $export, polling, files); what
# an export holds is decided per type by the read permissions the key holds (clinicrecords.exports).
BULK_EXPORT = "bulk:export"
# TEST_HELPERS: /v1/test_helpers, held only by a test key on its own sandbox clinic.
TEST_HELPERS = "test_helpers"
PSEUDO_PERMISSIONS = frozenset({KEY_HOLDER, EVENTS_FEED, BULK_EXPORT, TEST_HELPERS, *DerivedPermission})

# What a refusal names when the missing permission is not itself grantable.
REFUSAL_NAMES = {
    DerivedPermission.SubmissionsOfKind: "the read or write permission of the submission's kind "
                                         "(e.g. allergies:read)",
    DerivedPermission.SubmissionWithdraw: "the write permission of the submission's kind (e.g. allergies:write)",
}


def refusal_name(permission):
    return REFUSAL_NAMES.get(permission, permission)


class PortalPermission(StrEnum):
    """The portal's roles, as the permissions its pages declare (never a key's scope)."""

    SignedIn = "portal.signed_in"  # any signed-in account
    Member = "portal.member"  # a workspace's member
    Owner = "portal.owner"  # a workspace's owner
    ClinicStaff = "portal.clinic_staff"  # a clinic's staff member
    ClinicAdmin = "portal.clinic_admin"  # its admin
    Clinician = "portal.clinician"  # its clinician
