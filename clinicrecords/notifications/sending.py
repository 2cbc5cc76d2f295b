"""Sending one notification to the people who want it, in the transaction of the moment it tells of.

A notification never stops the change it tells of: a message the mail service refuses (a workspace's name
shaped like a link off the portal, say) is logged and left out, and the mail service has then written nothing.
"""

import logging

from clinicrecords.mail.interfaces import MailRefused
from clinicrecords.mail.services import mail_in
from clinicrecords.notifications.recipients import wanting

log = logging.getLogger(__name__)

SETTINGS_PATH = "/account/notifications"
TEMPLATES = "notifications/"


def notify(place, kind, people, template, regarding, page_path, **values):
    """Mail `template` (clinicrecords/mail/templates/notifications/<template>/) to each of `people` who wants
    `kind`, in `place`'s transaction: it links to the portal's `page_path` (`page_link`) and, in its footer, to
    the settings page, which its `List-Unsubscribe` header names too. Returns how many were queued."""
    mail = mail_in(place.registry, place.db, place.enqueue)
    values = {**values, "notification": kind.label, "page_link": mail.link(page_path),
              "settings_link": mail.link(SETTINGS_PATH)}
    queued = 0
    for person in wanting(place.db, kind, people):
        try:
            sent = mail.send(TEMPLATES + template, person.email, regarding=regarding,
                             unsubscribe=values["settings_link"], **values)
        except MailRefused as refused:
            log.warning("notification %s to account %s not sent: %s", kind.name, person.account_id, refused)
        else:
            if sent.withheld is None:
                queued += 1
            else:
                log.warning("notification %s to account %s not sent", kind.name, person.account_id)
    return queued


def workspace_regarding(name):
    return f"the workspace {name}"


def clinic_regarding(name):
    return f"the clinic {name}"
