from clinicrecords.resources import Resource


class KeyHolderResource(Resource):
    """Any valid key may read it (KEY_HOLDER in clinicrecords.access.permission_map)."""


class Me(KeyHolderResource):
    """/v1/me"""


class Connections(KeyHolderResource):
    """/v1/connections"""
