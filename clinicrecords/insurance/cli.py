"""Staff commands: payers, coverages, claims, insurer links, payment advices."""

from sqlalchemy import select

from clinicrecords.cli.arguments import uuid_arg
from clinicrecords.clinics.services import open_clinic
from clinicrecords.errors import InvalidInput
from clinicrecords.insurance import advices, claims, payers
from clinicrecords.insurance.models import Claim
from clinicrecords.insurance.money import plain_amount
from clinicrecords.insurance.services import activate_coverage_as_staff, confirm_coverage_as_staff


def _clinic(request, args):
    clinic = open_clinic(request.db, args.clinic)
    if clinic is None:
        raise InvalidInput(f"no clinic {args.clinic}")
    return clinic


def _group(commands, name, help):
    return commands.add_parser(name, help=help).add_subparsers(dest="action", required=True)


def _command(group, name, help, handler, record=None):
    parser = group.add_parser(name, help=help)
    parser.add_argument("--clinic", type=uuid_arg, required=True)
    if record:
        parser.add_argument("record_id", type=uuid_arg, metavar=record)
    parser.set_defaults(handler=handler)
    return parser


def register(commands):
    payer = _group(commands, "payer", "the clinic's payer directory")
    add = _command(payer, "add", "add a payer (disabled unless --enabled)", payer_add)
    add.add_argument("--name", required=True)
    add.add_argument("--primary-payer-id", required=True)
    add.add_argument("--coverage-type", action="append", default=[])
    add.add_argument("--operating-state", action="append", default=[])
    add.add_argument("--enabled", action="store_true")
    _command(payer, "enable", "list the payer and accept it on coverages", payer_enable, "PAYER_ID")
    _command(payer, "disable", "hide the payer and refuse it on new coverages", payer_disable, "PAYER_ID")

    coverage = _group(commands, "coverage", "coverages")
    _command(coverage, "confirm", "confirm a coverage", coverage_confirm, "COVERAGE_ID")
    _command(coverage, "activate", "activate a confirmed coverage", coverage_activate, "COVERAGE_ID")

    claim = _group(commands, "claim", "claims against insurers")
    create = _command(claim, "create", "create a claim awaiting payment", claim_create)
    create.add_argument("--insurer", type=uuid_arg, required=True)
    create.add_argument("--patient", type=uuid_arg, required=True)
    create.add_argument("--amount", required=True)
    pay = _command(claim, "pay", "record a payment received on a claim", claim_pay, "CLAIM_ID")
    pay.add_argument("--amount", required=True)
    listing = _command(claim, "list", "claims with what each still owes", claim_list)
    listing.add_argument("--insurer", type=uuid_arg)

    insurer = _group(commands, "insurer", "insurers linked to organizations")
    link = _command(insurer, "link", "link a workspace to one insurer of the clinic", insurer_link)
    link.add_argument("--workspace", type=uuid_arg, required=True)
    link.add_argument("--insurer", type=uuid_arg, required=True)

    advice = _group(commands, "payment-advice", "payment advices sent by insurers")
    _command(advice, "record", "mark an advice recorded (reconciled by staff)", advice_record, "ADVICE_ID")
    decline = _command(advice, "decline", "decline an advice", advice_decline, "ADVICE_ID")
    decline.add_argument("--reason")


def payer_add(request, args):
    _clinic(request, args)
    payer = payers.add_payer(request.db, args.name, args.primary_payer_id, args.coverage_type,
                             args.operating_state, enabled=args.enabled)
    return {"payer_id": str(payer.id), "enabled": payer.enabled}


def payer_enable(request, args):
    _clinic(request, args)
    return {"payer_id": str(args.record_id),
            "enabled": payers.set_payer_enabled(request.db, args.record_id, True).enabled}


def payer_disable(request, args):
    _clinic(request, args)
    return {"payer_id": str(args.record_id),
            "enabled": payers.set_payer_enabled(request.db, args.record_id, False).enabled}


def coverage_confirm(request, args):
    _clinic(request, args)
    return confirm_coverage_as_staff(request.db, args.record_id)


def coverage_activate(request, args):
    _clinic(request, args)
    return activate_coverage_as_staff(request.db, args.record_id)


def _claim(claim, currency):
    return {"claim_id": str(claim.id), "insurer_id": str(claim.insurer_id), "patient_id": str(claim.patient_id),
            "amount": str(plain_amount(claim.amount, currency)),
            "outstanding": str(plain_amount(claim.outstanding, currency)), "status": claim.status}


def claim_create(request, args):
    clinic = _clinic(request, args)
    return _claim(claims.create_claim(request.db, clinic, args.insurer, args.patient, args.amount), clinic.currency)


def claim_pay(request, args):
    clinic = _clinic(request, args)
    return _claim(claims.pay_claim(request.db, clinic, args.record_id, args.amount), clinic.currency)


def claim_list(request, args):
    clinic = _clinic(request, args)
    statement = select(Claim).order_by(Claim.created_at, Claim.id)
    if args.insurer:
        statement = statement.where(Claim.insurer_id == args.insurer)
    return {"claims": [_claim(c, clinic.currency) for c in request.db.scalars(statement)]}


def insurer_link(request, args):
    _clinic(request, args)
    link = claims.link_insurer(request.db, args.workspace, args.insurer)
    return {"workspace_id": str(link.workspace_id), "insurer_id": str(link.payer_id)}


def _advice(advice):
    return {"advice_id": str(advice.id), "status": advice.status}


def advice_record(request, args):
    _clinic(request, args)
    return _advice(advices.record_advice(request.db, args.record_id))


def advice_decline(request, args):
    _clinic(request, args)
    return _advice(advices.decline_advice(request.db, args.record_id, args.reason))
