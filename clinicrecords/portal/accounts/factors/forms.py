from clinicrecords.portal.web.forms import Form


class NextForm(Form):
    """A form whose only value is where to go once done (a page the person was led from)."""

    fields = ("next",)


class CodeForm(Form):
    fields = ("code", "next")


class PasskeyForm(Form):
    fields = ("credential", "next")


class AddPasskeyForm(Form):
    fields = ("name", "credential", "ceremony", "next")


class RenamePasskeyForm(Form):
    fields = ("name",)


class WorkspaceRuleForm(Form):
    fields = ("required",)
