"""FHIR search on the clinic's base: a type's records the key may read, as the export reads them, a page at a
time (clinicrecords.exports.search_parameters reads the query).

A type's records come from its sources (clinicrecords.exports.sources) whose read permission the key holds,
in export order: the same rows a bulk export writes (restricted patients and everything about them, sensitive
encounters and legacy text-only allergies left out), narrowed by the search's criteria, each source's rows by
id. A page is keyset-paged across the sources: the next link's `_cursor` carries the search itself (its
parameters and the position after the page's last record), encrypted and signed for this base, this type and
this key's owner, so a search sent as a form (POST _search) keeps its names out of the next link's URL too
(decision 0164).
"""

import base64
import json
import uuid
from dataclasses import dataclass
from urllib.parse import urlencode

from cryptography.fernet import Fernet, InvalidToken

from clinicrecords.api.cursors import CURSOR_LIFETIME_SECONDS, CURSOR_SIGNER
from clinicrecords.api.problems import Problem, invalid
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.exports.search_parameters import CURSOR_PARAMETER, SearchRefused, read_search
from clinicrecords.exports.sources import BASE_TYPES, SOURCES

NOT_A_SEARCH_CURSOR = "Not a cursor of this search, or expired: follow the next link as given."


@dataclass(frozen=True)
class Found:
    """One record a search found: its source and its row (attribute access, as the export's rows)."""

    source: object
    row: object


@dataclass(frozen=True)
class Position:
    """Where the next page starts: after the record `after` (an id) of the source named `source` (its
    `Source.name`: a type's two sources have two names)."""

    source: str
    after: uuid.UUID


@dataclass(frozen=True)
class SearchPage:
    found: list
    next_position: Position | None


def readable_sources(fhir_type, granted):
    """The type's sources a key holding `granted` may read, in export order; 403 scope_missing when none (before
    anything is read, so the answer says nothing of the clinic's records)."""
    readable = tuple(source for source in SOURCES if source.fhir_type == fhir_type and source.permission in granted)
    if not readable:
        raise Problem("scope_missing", f"This key lacks the permission "
                      f"{' or '.join(map(str, BASE_TYPES.get(fhir_type, ())))}.")
    return readable


def search_page(db, sources, search, position=None):
    """One page of `search` (a `Search`) over `sources`, starting at `position`: at most `search.count`
    records, and where the next page starts (None: this was the last)."""
    if search.count == 0:
        return SearchPage([], None)
    found, wanted = [], search.count + 1
    names = [source.name for source in sources]
    if position is not None and position.source not in names:  # the key no longer reads the cursor's source
        raise _not_a_cursor()
    first = names.index(position.source) if position is not None else 0
    for index in range(first, len(sources)):
        source = sources[index]
        statement = source.rows(None).order_by(None)
        columns = statement.selected_columns
        statement = statement.where(*(criterion.clause(columns) for criterion in search.criteria))
        if position is not None and index == first:
            statement = statement.where(columns.id > position.after)
        rows = db.execute(statement.order_by(columns.id).limit(wanted - len(found))).all()
        found.extend(Found(source, row) for row in rows)
        if len(found) == wanted:
            break
    if len(found) < wanted:
        return SearchPage(found, None)
    last = found[search.count - 1]
    return SearchPage(found[:search.count], Position(last.source.name, last.row.id))


class SearchCursors:
    """The next link's `_cursor`: the search and the position, encrypted (the parameters may name a patient)
    and signed with a key of its own drawn from the list cursors' secret; valid for a day, for the base, type
    and owner it was issued to."""

    def __init__(self, key):
        self._fernet = Fernet(base64.urlsafe_b64encode(key))

    def issue(self, scope, search, position):
        payload = {"s": scope, "q": [list(pair) for pair in search.applied], "n": position.source,
                   "a": str(position.after)}
        return self._fernet.encrypt(json.dumps(payload, separators=(",", ":")).encode()).decode()

    def open(self, token, scope, fhir_type):
        """(Search, Position) the cursor carries; 400 invalid_request when it is not one of this search's."""
        try:
            payload = json.loads(self._fernet.decrypt(token.encode(), ttl=CURSOR_LIFETIME_SECONDS))
            if payload["s"] != scope:
                raise ValueError("foreign")
            search = read_search(fhir_type, [tuple(pair) for pair in payload["q"]])
            return search, Position(str(payload["n"]), uuid.UUID(payload["a"]))
        except (InvalidToken, SearchRefused, ValueError, KeyError, TypeError, AttributeError):
            raise _not_a_cursor() from None


def _not_a_cursor():
    return Problem("invalid_request", NOT_A_SEARCH_CURSOR, errors=[
        {"pointer": f"/{CURSOR_PARAMETER}", "location": "query", "message": NOT_A_SEARCH_CURSOR}])


def search_cursors(registry):
    return SearchCursors(registry[CURSOR_SIGNER].subkey(b"fhir search cursor"))


@dataclass(frozen=True)
class SearchRequest:
    """What a search needs of the request: the clinic's session, the type, the key's permissions and owner, the
    type's URL on the base (`{base}/{type}`) and the cursors."""

    db: object
    fhir_type: str
    granted: frozenset
    owner_id: object
    collection_url: str
    cursors: SearchCursors

    @classmethod
    def of(cls, context, request):
        scope = clinic_scope(context)
        return cls(scope.db, context.fhir_type, scope.granted, scope.identity.owner_id,
                   request.resource_url(context)[:-1], search_cursors(request.registry))


@dataclass(frozen=True)
class SearchResult:
    page: SearchPage
    self_url: str  # what was applied
    next_url: str | None
    ignored: tuple  # what a lenient search left out: [diagnostics]


def run_search(asked, pairs, lenient=False):
    """The page `pairs` (the query's, or the query's and the form's; `_format` among them is the view's) asks
    of `asked` (a SearchRequest): a first page, or the one the next link's `_cursor` names. Raises 403
    scope_missing (problem) when the key reads no source of the type, SearchRefused for a query it will not run,
    400 invalid_request (problem) for a cursor not issued for this search or not sent alone."""
    sources = readable_sources(asked.fhir_type, asked.granted)
    pairs = [(name, value) for name, value in pairs if name != "_format"]
    scope = f"{asked.collection_url}|{asked.owner_id}"
    cursors = [value for name, value in pairs if name == CURSOR_PARAMETER]
    if cursors:
        if len(pairs) != 1:
            raise invalid([{"pointer": f"/{CURSOR_PARAMETER}", "location": "query",
                            "message": "A cursor carries its search: send it alone, as the next link does."}])
        search, position = asked.cursors.open(cursors[0], scope, asked.fhir_type)
    else:
        search, position = read_search(asked.fhir_type, pairs, lenient), None
    page = search_page(asked.db, sources, search, position)
    url = asked.collection_url
    next_url = None
    if page.next_position is not None:
        next_url = f"{url}?{urlencode([(CURSOR_PARAMETER, asked.cursors.issue(scope, search, page.next_position))])}"
    applied = [*search.applied, *([] if any(name == "_count" for name, _ in search.applied)
                                  else [("_count", str(search.count))])]
    return SearchResult(page, f"{url}?{urlencode(applied)}", next_url, search.ignored)
