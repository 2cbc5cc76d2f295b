"""Identity: the people who sign in to the portal and the console (issue 33), and their second factors
(issue 34). The context is being built: so far it holds the second factors' building blocks (TOTP, the
enrolment QR code, recovery codes, sealed TOTP secrets, breached passwords, WebAuthn ceremonies), pure and
unit-tested, which the accounts, sessions and pages will use. No models, no routes, no `includeme` yet.

Other contexts import it through `identity.services` and `identity.interfaces` only (.importlinter)."""
