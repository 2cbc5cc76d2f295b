from pyramid.authorization import Allow, Authenticated

from clinicrecords.access.permissions import KEY_HOLDER
from clinicrecords.resources import Resource


class KeyHolderResource(Resource):
    __acl__ = ((Allow, Authenticated, KEY_HOLDER),)


class Me(KeyHolderResource):
    """/v1/me"""


class Connections(KeyHolderResource):
    """/v1/connections"""
