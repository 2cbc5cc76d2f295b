"""`clinicrecords-admin CONFIG_URI COMMAND ...`: the operator CLI.

The contract operators' scripts rely on: every command prints exactly one JSON object on stdout and exits 0;
bad input prints a clear message on stderr, exits 2 and changes nothing (the command's transaction is
aborted). Each bounded context adds its commands in its own `cli.py` with a `register(subparsers)`,
found through the one registry of contexts (`clinicrecords.contexts`).
"""

import argparse
import configparser
import json
import sys
from pathlib import Path

from clinicrecords import SERVED_NOTE, contexts
from clinicrecords.db import ENGINE
from clinicrecords.errors import InvalidInput
from clinicrecords.settings import FOLLOW_SERVED

EXIT_BAD_INPUT = 2


class CommandError(InvalidInput):
    """A command refuses its input."""


def build_parser():
    parser = argparse.ArgumentParser(prog="clinicrecords-admin", description=__doc__.splitlines()[0])
    parser.add_argument("config_uri", metavar="CONFIG_URI", help="ini file, e.g. development.ini")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in contexts.command_modules():
        module.register(commands)
    return parser


def run(argv=None, stdout=None, stderr=None):
    """Run one command; returns the exit status. `stdout`/`stderr` default to the process's own."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    args = build_parser().parse_args(argv)
    from pyramid.paster import bootstrap
    try:
        _check_readable(args.config_uri)
        # Links are built on the address the running service recorded, if one runs on this database.
        with bootstrap(args.config_uri, options={FOLLOW_SERVED: "true"}) as env:
            note = env["registry"].get(SERVED_NOTE)
            if note:
                print(f"clinicrecords-admin: note: {note}", file=stderr)
            try:
                result = _run_handler(args, env["request"])
            finally:
                env["registry"][ENGINE].dispose()
    except InvalidInput as exc:
        print(f"clinicrecords-admin: error: {exc}", file=stderr)
        return EXIT_BAD_INPUT
    stdout.write(json.dumps(result, default=str) + "\n")
    stdout.flush()
    return 0


def _check_readable(config_uri):
    """A missing, unreadable or malformed ini file is bad input (exit 2), not a traceback."""
    location, _, name = config_uri.partition("#")
    path, name = Path(location), name or "main"
    parser = configparser.ConfigParser(interpolation=None)
    try:
        with path.open(encoding="utf-8") as config:
            parser.read_file(config)
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise CommandError(f"cannot read the config file {str(path)!r}: {reason}") from None
    except configparser.Error as exc:
        first_line = str(exc).splitlines()[0]
        raise CommandError(f"the config file {str(path)!r} is not a valid ini file: {first_line}") from None
    if not any(parser.has_section(f"{kind}:{name}") for kind in ("app", "pipeline", "composite")):
        raise CommandError(f"the config file {str(path)!r} has no [app:{name}] section")


def _run_handler(args, request):
    if not getattr(args.handler, "transactional", True):
        return args.handler(request, args)
    with request.tm:
        return args.handler(request, args)


def main(argv=None):
    sys.exit(run(argv))


def command_group(commands, name, help):
    """The subcommands of a top-level command; contexts that share a name (`item`) share one group."""
    groups = vars(commands).setdefault("_clinicrecords_groups", {})
    if name not in groups:
        groups[name] = commands.add_parser(name, help=help).add_subparsers(dest="action", required=True)
    return groups[name]


def not_transactional(handler):
    """For commands that manage their own transactions (migrate)."""
    handler.transactional = False
    return handler


def progress_bar(label, smallest=20):
    """A `progress(done, total)` that draws `label [###...] done/total` on stderr, on a terminal only (stdout
    stays the one JSON object) and for `smallest` steps or more."""
    def progress(done, total):
        if sys.stderr.isatty() and total >= smallest:
            width = 30
            filled = width * done // total
            sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
            if done == total:
                sys.stderr.write("\n")
            sys.stderr.flush()
    return progress
