"""People in their roles, as the portal makes them, and what the SMTP server received for them."""

from tests.portal.helpers import signed_up, submit


def joined(app, owner, workspace_id, role):
    """A new account invited by `owner` into the workspace in `role` (owner or developer), signed in and
    joined. Returns (browser, email)."""
    client, email = signed_up(app)
    url = submit(owner.get(f"/portal/workspaces/{workspace_id}/members"), "invite", email=email, role=role,
                 status=303).follow().html.find(id="invitation-link").get_text().strip()
    submit(client.get(url), "join", status=303)
    return client, email


def turn_off(client, *names):
    """Untick these notifications on the person's settings page and save."""
    form = client.get("/portal/account/notifications").forms["notifications"]
    for box in form.fields["notify"]:
        if box._value in names:
            box.checked = False
    return form.submit(status=303)


def recipients(mail, subject_part=""):
    """Who received a message whose subject contains `subject_part` (sorted addresses)."""
    return sorted(address for message in mail.messages() if subject_part in message.subject
                  for address in message.to)


def only_message(mail, to, subject_part=""):
    found = [message for message in mail.messages() if message.to == [to] and subject_part in message.subject]
    assert len(found) == 1, [(m.to, m.subject) for m in mail.messages()]
    return found[0]


def settings_link_in(message):
    """Every notification links to the person's settings page, on the portal's public address."""
    link = message.link("/account/notifications")
    assert link.endswith("/portal/account/notifications") and link.startswith("http")
    assert "notification settings" in message.text and "notification settings" in message.html
    # RFC 2369: mail programs offer the header as an "Unsubscribe" button, leading to the same page.
    assert message.message["List-Unsubscribe"] == f"<{link}>"
    return link
