from clinicrecords.portal.accounts.factors.resources import PasskeySignIn, SecondStep, TwoFactorPage
from clinicrecords.portal.web.resources import Node

# `public`: open without a session (the allow-list of tests/access/test_permission_registry.py).


class SignUp(Node):
    """/signup"""

    public = True


class LogIn(Node):
    """/login (its second step and password-free passkey sign-in: `portal.accounts.factors`)"""

    public = True
    children = {"second-step": SecondStep, "passkey": PasskeySignIn}


class LogOut(Node):
    """/logout"""

    public = True


class ForgotPassword(Node):
    """/forgot-password"""

    public = True


class ResetPassword(Node):
    """/reset-password?token=..."""

    public = True


class VerifyEmail(Node):
    """/verify-email?token=..."""

    public = True


class PasswordPage(Node):
    """/account/password"""


class EmailPage(Node):
    """/account/email"""


class SessionsPage(Node):
    """/account/sessions: one's active sessions (POST …/end, …/end-others)"""


class ConfirmPage(Node):
    """/confirm?next=…: "Confirm it's you" (re-authentication before a sensitive action)"""


class NotificationsPage(Node):
    """/account/notifications"""


class AccountPages(Node):
    """/account"""

    children = {"password": PasswordPage, "email": EmailPage, "two-factor": TwoFactorPage, "sessions": SessionsPage,
                "notifications": NotificationsPage}
