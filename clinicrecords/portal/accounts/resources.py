from clinicrecords.portal.web.resources import Node


class SignUp(Node):
    """/signup"""


class LogIn(Node):
    """/login"""


class LogOut(Node):
    """/logout"""


class PasswordPage(Node):
    """/account/password"""


class AccountPages(Node):
    """/account"""

    children = {"password": PasswordPage}
