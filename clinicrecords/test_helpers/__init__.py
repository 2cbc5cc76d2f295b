"""Sandbox test helpers: /v1/test_helpers/clinics/{clinic_id}/... do in a workspace's sandbox what clinic staff
do in a real clinic (accept a submission, sign a note, change stock, reset the sandbox). Only a test key on its
own sandbox reaches them; every other key gets 404, so live clinics are out of reach by construction."""

from clinicrecords.test_helpers.resources import TestHelpers
from clinicrecords.test_helpers.schemas import TestHelperResult


def includeme(config):
    config.add_api_resource("test_helpers", TestHelpers)
    config.add_representation("test_helper_result", plain=lambda result, request: result,
                              schema=TestHelperResult)
    config.scan(".views")
