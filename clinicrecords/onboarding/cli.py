from clinicrecords.cli import command_group
from clinicrecords.cli.arguments import uuid_arg
from clinicrecords.errors import InvalidInput
from clinicrecords.onboarding.interfaces import IBusinessProfile, IDomainVerification


def register(commands):
    workspace = command_group(commands, "workspace", "organizations' workspaces")
    _register_domain(workspace)
    _register_profile(workspace)


def _workspace_arg(parser):
    parser.add_argument("--workspace", type=uuid_arg, required=True, metavar="WORKSPACE_ID")


def _register_domain(workspace):
    domain = workspace.add_parser("domain", help="domain verification by a DNS TXT record").add_subparsers(
        dest="domain_action", required=True)
    set_domain = domain.add_parser("set", help="claim a domain; prints the TXT record to publish")
    _workspace_arg(set_domain)
    set_domain.add_argument("--domain", required=True, metavar="NAME")
    set_domain.set_defaults(handler=domain_set)

    check = domain.add_parser("check", help="check the TXT record now and restart the schedule")
    _workspace_arg(check)
    check.set_defaults(handler=domain_check)

    show = domain.add_parser("show", help="the domain's state, last and next check")
    _workspace_arg(show)
    show.set_defaults(handler=domain_show)


def domain_set(request, args):
    return request.find_service(IDomainVerification).set_domain(args.workspace, args.domain).as_json()


def domain_check(request, args):
    return request.find_service(IDomainVerification).check_now(args.workspace).as_json()


def domain_show(request, args):
    status = request.find_service(IDomainVerification).status(args.workspace)
    if status is None:
        raise InvalidInput(f"workspace {args.workspace} has no domain (or does not exist)")
    return status.as_json()


def _register_profile(workspace):
    profile = workspace.add_parser("profile", help="the business profile and its review").add_subparsers(
        dest="profile_action", required=True)
    submit = profile.add_parser("submit", help="submit (or resubmit) the profile; needs a verified workspace")
    _workspace_arg(submit)
    submit.add_argument("--legal-name", required=True)
    submit.add_argument("--website", required=True, metavar="URL")
    submit.add_argument("--country", required=True, metavar="CC", help="ISO 3166-1 alpha-2, e.g. GB")
    submit.add_argument("--contact-email", required=True)
    submit.add_argument("--intended-use", required=True, metavar="TEXT")
    submit.set_defaults(handler=profile_submit)

    review = profile.add_parser("review", help="approve or reject a submitted profile")
    _workspace_arg(review)
    decision = review.add_mutually_exclusive_group(required=True)
    decision.add_argument("--approve", dest="approve", action="store_const", const=True)
    decision.add_argument("--reject", dest="approve", action="store_const", const=False)
    review.add_argument("--reason", metavar="TEXT", help="required to reject; shown to the organization")
    review.set_defaults(handler=profile_review)

    show = profile.add_parser("show", help="the profile's status and fields")
    _workspace_arg(show)
    show.set_defaults(handler=profile_show)


def profile_submit(request, args):
    return request.find_service(IBusinessProfile).submit(
        args.workspace, legal_name=args.legal_name, website=args.website, country=args.country,
        contact_email=args.contact_email, intended_use=args.intended_use).as_json()


def profile_review(request, args):
    return request.find_service(IBusinessProfile).review(
        args.workspace, approve=args.approve, reason=args.reason).as_json()


def profile_show(request, args):
    profiles = request.find_service(IBusinessProfile)
    profile = profiles.profile(args.workspace)
    if profile is None:
        return {"workspace_id": str(args.workspace), "status": profiles.status(args.workspace)}
    return profile.as_json()
