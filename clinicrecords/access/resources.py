from pyramid.authorization import Allow, Authenticated

from clinicrecords.resources import Resource

# Granted to every valid key: routes that only identify the caller need no permission of their own.
KEY_HOLDER = "key_holder"


class KeyHolderResource(Resource):
    __acl__ = ((Allow, Authenticated, KEY_HOLDER),)


class Me(KeyHolderResource):
    """/v1/me"""


class Connections(KeyHolderResource):
    """/v1/connections"""
