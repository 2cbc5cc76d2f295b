"""`demo`: a ready-to-call setup for the README's Quickstart."""

import json
import uuid
from pathlib import Path

from clinicrecords.access import services
from clinicrecords.access.services import authenticate
from clinicrecords.access.interfaces import ALL_PERMISSIONS
from clinicrecords.api.public_url import service_base_url
from clinicrecords.clinics.services import create_clinic
from clinicrecords.onboarding.interfaces import IBusinessProfile
from clinicrecords.sandbox import seed_sandbox
from clinicrecords.settings import app_settings

DEMO_WORKSPACE_ID = uuid.UUID("00000000-0000-4000-8000-00000000d001")
DEMO_CLINIC_ID = uuid.UUID("00000000-0000-4000-8000-00000000c001")
# Approved, as a live workspace's must be. The demo is verified by the operator flag, not by a domain:
# example domains publish no records, so a domain's daily re-check would lapse it.
DEMO_PROFILE = {
    "legal_name": "Demo Health Apps Ltd", "website": "https://demo-health-apps.example", "country": "GB",
    "contact_email": "developers@demo-health-apps.example",
    "intended_use": "A fictional partner: patients' reminders and booking, for trying the API.",
}


def register(commands):
    parser = commands.add_parser("demo",
                                 help="create (once) a demo workspace, clinic and data; print its keys")
    parser.add_argument("--keys-file", type=Path, metavar="PATH",
                        help="keep the keys in this file and reuse them while they still work (default: fresh "
                             "keys on every run)")
    parser.set_defaults(handler=demo)


def _exists(get, db, record_id):
    try:
        return get(db, record_id)
    except services.AccessError:
        return None


def _ensure_demo(request):
    db = request.db
    if _exists(services.get_workspace, db, DEMO_WORKSPACE_ID) is None:
        # Fixed ids keep the demo's printed commands stable across runs.
        services.create_workspace(
            db, "Demo Health Apps", verified=True, paid=True, terms_accepted=True,
            seed=lambda db, clinic: seed_sandbox(request, clinic), workspace_id=DEMO_WORKSPACE_ID,
        )
    profiles = request.find_service(IBusinessProfile)
    if profiles.status(DEMO_WORKSPACE_ID) == "none":
        profiles.submit(DEMO_WORKSPACE_ID, **DEMO_PROFILE)
        profiles.review(DEMO_WORKSPACE_ID, approve=True, reason="The demo workspace.")
    if _exists(services.get_clinic, db, DEMO_CLINIC_ID) is None:
        clinic = create_clinic(db, "Riverside Family Clinic", lat=51.5072, lng=-0.1276, currency="GBP",
                               clinic_id=DEMO_CLINIC_ID)
        seed_sandbox(request, clinic)
        services.grant_connection(db, DEMO_WORKSPACE_ID, DEMO_CLINIC_ID, ALL_PERMISSIONS)
    return services.get_workspace(db, DEMO_WORKSPACE_ID)


def _owner_matches(identity, role):
    if role == "clinic":
        return identity.clinic_id == DEMO_CLINIC_ID
    return identity.workspace_id == DEMO_WORKSPACE_ID and identity.mode == role


def _kept_keys(request, path):
    """The keys an earlier run stored, when every one still authenticates as its demo role; else None."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        keys = {role: str(stored[role]) for role in ("clinic", "live", "test")}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    pepper = app_settings(request.registry).secrets.key_pepper
    for role, key in keys.items():
        identity = authenticate(request.db, pepper, f"Bearer {key}")
        if identity is None or not _owner_matches(identity, role):
            return None
    return keys


def _fresh_keys(request):
    """Revokes the previous demo keys: a secret is shown once, so the old ones could not be printed again."""
    db = request.db
    demo_keys = [*services.list_keys(db, workspace_id=DEMO_WORKSPACE_ID),
                 *services.list_keys(db, clinic_id=DEMO_CLINIC_ID)]
    for key in demo_keys:
        if key.revoked_at is None:
            services.revoke_key(db, key.key_id)
    pepper = app_settings(request.registry).secrets.key_pepper
    return {"clinic": services.create_key(db, pepper, clinic_id=DEMO_CLINIC_ID)[1],
            "live": services.create_key(db, pepper, workspace_id=DEMO_WORKSPACE_ID, mode="live")[1],
            "test": services.create_key(db, pepper, workspace_id=DEMO_WORKSPACE_ID, mode="test")[1]}


def _store(path, keys):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.write_text(json.dumps(keys, indent=2) + "\n", encoding="utf-8")


def demo(request, args):
    workspace = _ensure_demo(request)
    keys = _kept_keys(request, args.keys_file) if args.keys_file else None
    kept = keys is not None
    if not kept:
        keys = _fresh_keys(request)
        if args.keys_file:
            _store(args.keys_file, keys)
    base_url = service_base_url(app_settings(request.registry))
    return {
        "workspace_id": str(DEMO_WORKSPACE_ID),
        "clinic_id": str(DEMO_CLINIC_ID),
        "sandbox_clinic_id": str(workspace.sandbox_clinic_id),
        "keys": keys,
        "keys_kept": kept,
        "keys_file": str(args.keys_file) if args.keys_file else None,
        "base_url": base_url,
        "docs_url": f"{base_url}/v1/docs",
        "curl": f"curl -H 'Authorization: Bearer {keys['live']}' {base_url}/v1/connections",
    }
