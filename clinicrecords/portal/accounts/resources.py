from clinicrecords.portal.web.resources import Node

# `public`: open without a session (the allow-list of tests/access/test_permission_registry.py).


class SignUp(Node):
    """/signup"""

    public = True


class LogIn(Node):
    """/login"""

    public = True


class LogOut(Node):
    """/logout"""

    public = True


class PasswordPage(Node):
    """/account/password"""


class AccountPages(Node):
    """/account"""

    children = {"password": PasswordPage}
