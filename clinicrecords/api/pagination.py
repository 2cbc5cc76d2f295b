"""Cursor-paged lists: `limit` (1–100, default 25), `starting_after` (a signed cursor from `next_cursor`)
and, where a list has it, `updated_since`. Keyset pagination over (sort key, id): no OFFSET, constant cost
per page however deep, stable under inserts.
"""

import itertools
from dataclasses import dataclass

from marshmallow import fields, validate
from sqlalchemy import Integer, bindparam, tuple_

from clinicrecords.api.cursors import CURSOR_LIFETIME_SECONDS, CURSOR_PATTERN, CURSOR_SIGNER, NOT_A_CURSOR
from clinicrecords.api.schemas import Instant, RequestSchema
from clinicrecords.db.prebuilt import Prebuilt

DEFAULT_LIMIT = 25
MAX_LIMIT = 100


CURSOR_DESCRIPTION = (
    f"Opaque: the `next_cursor` of the previous page, issued and signed by the server for this list and this "
    f"key's owner, valid for {CURSOR_LIFETIME_SECONDS // 3600} hours. Never build or change one: anything the "
    f"server did not issue for this list is 400 `invalid_request`, even when it has this shape.")


class ListQuery(RequestSchema):
    limit = fields.Integer(load_default=DEFAULT_LIMIT, validate=validate.Range(1, MAX_LIMIT))
    starting_after = fields.String(validate=[validate.Length(1, 2000), validate.Regexp(CURSOR_PATTERN,
                                                                                        error=NOT_A_CURSOR)],
                                   metadata={"description": CURSOR_DESCRIPTION})


class UpdatedSinceListQuery(ListQuery):
    updated_since = Instant()


@dataclass
class Page:
    items: list
    has_more: bool
    next_cursor: str | None


def cursor_scope(request):
    """A cursor only works on the list and for the caller it came from."""
    identity = request.identity
    owner = identity.owner_id if identity is not None else "public"
    return f"{request.path}|{owner}"


@dataclass(frozen=True)
class ListCursors:
    """What a service needs to page a list without the request: the signer and the list's cursor scope."""

    signer: object
    scope: str


def list_cursors(request):
    return ListCursors(request.registry[CURSOR_SIGNER], cursor_scope(request))


def keyset_page(cursors, db, statement, sort_columns, query, rows=False):
    """One page of `statement` (a select of one entity) ordered by `sort_columns`, the last one unique; or
    of a `PrebuiltPages`'s statement for this request (`bound(filters)`: rows, on the driver).

    The cursor carries the sort values of the page's last item, signed for this list and caller. With
    `rows=True` the statement selects columns and the items are rows (attribute access like an entity,
    without the ORM's per-object cost), for hot read paths whose representation only reads columns.
    `cursors` is the list's ListCursors (`list_cursors(request)` in a view or a service factory).
    """
    signer, scope = cursors.signer, cursors.scope
    position = signer.verify(query["starting_after"], scope) if query.get("starting_after") else None
    limit = query["limit"]
    if isinstance(statement, BoundPages):
        items = statement.fetch(db, position, limit + 1)
    else:
        if position is not None:
            statement = statement.where(tuple_(*sort_columns) > tuple_(*position))
        statement = statement.order_by(*sort_columns).limit(limit + 1)
        items = db.execute(statement).all() if rows else db.scalars(statement).all()
    has_more = len(items) > limit
    items = items[:limit]
    next_cursor = None
    if has_more:
        next_cursor = signer.sign(scope, [getattr(items[-1], column.key) for column in sort_columns])
    return Page(items, has_more, next_cursor)


class PrebuiltPages:
    """A hot list's page statements built once, as `Prebuilt` rows, for every combination of its optional
    filters and of a cursor; `keyset_page` runs the one a request needs when given `bound(filters)`.

    `filters` maps a query field to (column, comparison): the value is always a bind parameter, never part of
    the built statement, so one request's values cannot reach another's."""

    def __init__(self, statement, sort_columns, filters):
        self._variants = {}
        for chosen in itertools.chain.from_iterable(
                itertools.combinations(filters, size) for size in range(len(filters) + 1)):
            for after in (False, True):
                variant = statement
                for name in chosen:
                    column, compare = filters[name]
                    variant = variant.where(compare(column, bindparam(name, type_=column.type)))
                if after:
                    variant = variant.where(tuple_(*sort_columns) > tuple_(*(
                        bindparam(f"after_{index}", type_=column.type) for index, column in enumerate(sort_columns))))
                variant = variant.order_by(*sort_columns).limit(bindparam("page_size", type_=Integer()))
                self._variants[frozenset(chosen), after] = Prebuilt(variant)

    def bound(self, filters):
        """This request's pages: `filters` the values of the query fields it gives (absent ones left out)."""
        return BoundPages(self, {name: value for name, value in filters.items() if value is not None})


@dataclass(frozen=True)
class BoundPages:
    pages: PrebuiltPages
    filters: dict

    def fetch(self, db, position, size):
        after = {f"after_{index}": value for index, value in enumerate(position or ())}
        statement = self.pages._variants[frozenset(self.filters), position is not None]
        return statement.all(db, **self.filters, **after, page_size=size)


def envelope(page, render):
    return {"data": [render(item) for item in page.items], "has_more": page.has_more,
            "next_cursor": page.next_cursor}
