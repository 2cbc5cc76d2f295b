from clinicrecords.access.interfaces import DerivedPermission
from clinicrecords.resources import Collection, Resource, parse_uuid
from clinicrecords.review.interfaces import ISubmissionService, review_kinds
from clinicrecords.sandbox.interfaces import sandbox_id


def _kind_permissions(kind):
    return (kind.read_permission, kind.write_permission)


class SubmissionResource(Resource):
    """One submission: readable with the read or write permission of its kind."""

    sandbox_example_id = sandbox_id("submission:1")  # pending, sent by the sandbox's own workspace

    def __init__(self, parent, name, submission):
        super().__init__(parent, name)
        self.submission = submission
        self.kind = review_kinds(self.request.registry)[submission.resource_type]

    @property
    def confers(self):
        """What grants the derived permissions here (clinicrecords.access.permission_map)."""
        return {DerivedPermission.SubmissionsOfKind: _kind_permissions(self.kind),
                DerivedPermission.SubmissionWithdraw: (self.kind.write_permission,)}


class SubmissionCollection(Collection):
    """/v1/clinics/{clinic_id}/submissions: the caller's own submissions of the kinds it may read or send."""
    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)

    service = ISubmissionService
    item_resource = SubmissionResource
    item_parameter = "submission_id"

    @property
    def confers(self):
        """What grants the derived permissions here (clinicrecords.access.permission_map)."""
        kinds = review_kinds(self.request.registry).values()
        return {DerivedPermission.SubmissionsOfKind: [p for kind in kinds for p in _kind_permissions(kind)]}

    def __getitem__(self, name):
        # During traversal request.context is not set yet: the service's context is this collection.
        submission = self._service().get_own(parse_uuid(name))
        if submission is None:
            raise KeyError(name)
        return SubmissionResource(self, name, submission)
