from clinicrecords.portal.web.forms import Form


class ProfileForm(Form):
    fields = ("legal_name", "website", "country", "contact_email", "intended_use")

    @classmethod
    def of(cls, profile):
        """Filled with the submitted profile (a resubmission starts from it), or empty."""
        if profile is None:
            return cls()
        return cls({name: getattr(profile, name) for name in cls.fields})
