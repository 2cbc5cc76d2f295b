from clinicrecords.identity.services import IMembershipService


class StaffPredicate:
    """`staff_account=True`: the view is for a signed-in clinic staff account (the portal's home sends
    staff to their clinic instead of the workspace list)."""

    def __init__(self, value, config):
        self.value = bool(value)

    def text(self):
        return f"staff_account = {self.value}"

    phash = text

    def __call__(self, context, request):
        identity = request.identity
        is_staff = identity is not None and request.find_service(IMembershipService).is_staff(identity.account_id)
        return is_staff == self.value
