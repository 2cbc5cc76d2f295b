"""The network stock search: one SQL statement over the projection in the control schema.

Never a UNION over clinic schemas. Text: trigram word similarity finds the closest names in the small
vocabulary `listing_terms` (GIN, `extensions.gin_trgm_ops`), then the items carrying those names through the
GIN index on `listing_items.terms`. Codes: btree on `gtin`, GIN on `regulator_numbers`. Geo: a bounding box
on (lat, lng), then the great-circle (haversine) distance. The statement is assembled from fixed fragments
only; every value is a bound parameter. The application role's search_path is empty, so pg_trgm's operator
and function are schema-qualified. Plans: docs/listings.md.
"""

import math
from dataclasses import dataclass

from sqlalchemy import text

EARTH_RADIUS_KM = 6371.0088
KM_PER_DEGREE = EARTH_RADIUS_KM * math.pi / 180
# How many of the closest names a misspelt query may expand to.
MAX_TERMS = 32


@dataclass(frozen=True)
class Near:
    lat: float
    lng: float
    radius_km: float


@dataclass(frozen=True)
class SearchQuery:
    q: str | None = None
    gtin: str | None = None
    regulator_number: str | None = None
    near: Near | None = None
    limit: int = 20

    @property
    def match(self):
        return "text" if self.q is not None else "code"


@dataclass(frozen=True)
class Audience:
    """Whose listings a key sees: its workspace's published pharmacies (live) or its own sandbox (test)."""

    workspace_id: object = None
    sandbox_clinic_id: object = None


def bounding_box(near):
    """(lat_min, lat_max, lng ranges): lng ranges is None near a pole, two ranges across the antimeridian."""
    dlat = near.radius_km / KM_PER_DEGREE
    lat_min, lat_max = near.lat - dlat, near.lat + dlat
    if lat_min <= -90 or lat_max >= 90:
        return max(lat_min, -90.0), min(lat_max, 90.0), None
    widest = max(abs(lat_min), abs(lat_max))
    dlng = near.radius_km / (KM_PER_DEGREE * math.cos(math.radians(widest)))
    if dlng >= 180:
        return lat_min, lat_max, None
    lng_min, lng_max = near.lng - dlng, near.lng + dlng
    if lng_min < -180:
        return lat_min, lat_max, ((lng_min + 360, 180.0), (-180.0, lng_max))
    if lng_max > 180:
        return lat_min, lat_max, ((lng_min, 180.0), (-180.0, lng_max - 360))
    return lat_min, lat_max, ((lng_min, lng_max),)


# control.listing_term_matches (revision c08_listings) reads the vocabulary through its trigram index only:
# the planner prices the similarity operator as cheap and would otherwise scan every term.
_MATCHED = """
WITH matched AS MATERIALIZED (
    SELECT term, score FROM control.listing_term_matches(CAST(:q AS text), :max_terms)
)"""

_CONDITION = {
    "q": "li.terms && ARRAY(SELECT m.term FROM matched m)",
    "gtin": "li.gtin = :gtin",
    "regulator_number": "li.regulator_numbers @> ARRAY[CAST(:regulator_number AS text)]",
}
_SCORE = {
    "q": "(SELECT max(m.score) FROM matched m WHERE m.term = ANY(li.terms))",
    "gtin": "1.0",
    "regulator_number": "1.0",
}
_DISTANCE = ("2 * :earth_radius_km * asin(least(1.0, sqrt("
             "power(sin(radians(li.lat - :lat) / 2), 2) + "
             "cos(radians(:lat)) * cos(radians(li.lat)) * power(sin(radians(li.lng - :lng) / 2), 2))))")
_STALE = ("(c.till_stale_since IS NOT NULL OR (c.sandbox_workspace_id IS NULL AND "
          "(c.till_reported_at IS NULL OR c.till_reported_at <= :cutoff)))")


def build(query, audience, now, age):
    """(SQL text, parameters) for one search."""
    kind = "q" if query.q is not None else ("gtin" if query.gtin is not None else "regulator_number")
    params = {"limit": query.limit, "cutoff": now - age, "age": age}
    if kind == "q":
        params.update(q=query.q, max_terms=MAX_TERMS)
    else:
        params[kind] = getattr(query, kind)
    where = [_CONDITION[kind]]
    if audience.sandbox_clinic_id is not None:
        where.append("li.clinic_id = :sandbox_clinic_id")
        params["sandbox_clinic_id"] = audience.sandbox_clinic_id
    else:
        where.append("li.clinic_id IN (SELECT g.clinic_id FROM control.listing_grants g "
                     "WHERE g.workspace_id = :workspace_id)")
        params["workspace_id"] = audience.workspace_id
    distance, radius = "CAST(NULL AS double precision)", ""
    if query.near is not None:
        lat_min, lat_max, lng_ranges = bounding_box(query.near)
        where.append("li.lat BETWEEN :lat_min AND :lat_max")
        params.update(lat_min=lat_min, lat_max=lat_max, lat=query.near.lat, lng=query.near.lng,
                      earth_radius_km=EARTH_RADIUS_KM, radius_km=query.near.radius_km)
        if lng_ranges is not None:
            parts = []
            for index, (low, high) in enumerate(lng_ranges):
                parts.append(f"li.lng BETWEEN :lng_min_{index} AND :lng_max_{index}")
                params[f"lng_min_{index}"], params[f"lng_max_{index}"] = low, high
            where.append("(" + " OR ".join(parts) + ")")
        distance, radius = _DISTANCE, "WHERE cand.distance_km <= :radius_km"
    sql = f"""{_MATCHED if kind == "q" else ""}
SELECT cand.clinic_id, c.display_name, cand.item_id,
       CASE WHEN {_STALE} THEN 'unknown' ELSE cand.band END AS band,
       CASE WHEN {_STALE} THEN coalesce(c.till_stale_since, c.till_reported_at + :age, cand.stock_changed_at)
            ELSE greatest(cand.stock_changed_at, c.till_reported_at) END AS as_of,
       cand.distance_km, cand.score
FROM (
    SELECT li.clinic_id, li.item_id, li.band, li.stock_changed_at, {_SCORE[kind]} AS score,
           {distance} AS distance_km
    FROM control.listing_items li
    WHERE {" AND ".join(where)}
) cand
JOIN control.listing_clinics c ON c.clinic_id = cand.clinic_id
{radius}
ORDER BY cand.score DESC, cand.distance_km ASC NULLS LAST, c.display_name, cand.clinic_id, cand.item_id
LIMIT :limit"""
    return sql, params


def search(db, query, audience, now, age):
    sql, params = build(query, audience, now, age)
    return db.execute(text(sql), params).mappings().all()
