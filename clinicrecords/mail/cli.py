"""`mail test --to EMAIL`: operators check that mail reaches someone."""

from clinicrecords.mail.services import send_test_message


def register(commands):
    mail = commands.add_parser("mail", help="outgoing mail").add_subparsers(dest="action", required=True)
    test = mail.add_parser("test", help="queue a test message through the outbox; the worker sends it")
    test.add_argument("--to", required=True, metavar="EMAIL")
    test.set_defaults(handler=mail_test)


def mail_test(request, args):
    return send_test_message(request, args.to)
