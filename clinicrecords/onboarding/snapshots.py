"""The frozen views the services hand out (no ORM rows outside their transaction), as JSON objects."""

import dataclasses
import datetime
import uuid


def snapshot_json(snapshot):
    return {name: (value.isoformat() if isinstance(value, datetime.datetime) else
                   str(value) if isinstance(value, uuid.UUID) else value)
            for name, value in dataclasses.asdict(snapshot).items()}
