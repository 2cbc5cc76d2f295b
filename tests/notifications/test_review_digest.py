"""Decision 0095: the daily digest tells a clinic's clinicians how many submissions wait in its review queue
and how long the oldest has waited (never a patient or an item); none when the queue is empty, only the
clinic's own clinicians, once a day, from 07:00 in the clinic's time zone. The digest's run is the periodic
task's own body, each clinic in a transaction of its own."""

import datetime

from sqlalchemy import func, select, update

from clinicrecords.clinics.services import open_clinic, set_clinic
from clinicrecords.notifications.digest import send_review_digests_now, waited
from clinicrecords.notifications.models import ReviewDigest
from clinicrecords.notifications.tasks import send_review_digests
from clinicrecords.review.models import Submission
from clinicrecords.tasks import huey
from tests.common.world import Connected
from tests.notifications.helpers import only_message, recipients, settings_link_in, turn_off
from tests.portal.console_helpers import staff_browser
from tests.review.conftest import Clinic

SUBSTANCES = ("Peanut", "Penicillin", "Latex")


def _connected_clinic(world, testapp, name):
    clinic_id = world.clinic(name=name)
    workspace_id, sandbox_id = world.workspace()
    world.grant(workspace_id, clinic_id)
    return Clinic(testapp, world, Connected(clinic_id, workspace_id, sandbox_id,
                                            world.key(workspace_id=workspace_id, mode="live")))


def test_clinicians_get_the_count_and_the_oldest_s_age_once_a_day(app, testapp, world, mail):
    riverside = _connected_clinic(world, testapp, "Riverside Clinic")
    for substance in SUBSTANCES:
        riverside.allergy(substance)
    _, clinician = staff_browser(app, riverside.id, "clinician")
    _, both = staff_browser(app, riverside.id, "admin,clinician")
    quiet_client, quiet = staff_browser(app, riverside.id, "clinician")
    _, admin = staff_browser(app, riverside.id, "admin")
    turn_off(quiet_client, "review_digest")
    empty = world.clinic(name="Empty Clinic")
    _, idle_clinician = staff_browser(app, empty, "clinician")
    asleep = _connected_clinic(world, testapp, "Night Clinic")
    asleep.allergy("Peanut")
    _, asleep_clinician = staff_browser(app, asleep.id, "clinician")

    run_at = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1)).replace(
        hour=7, minute=30, second=0, microsecond=0)
    with world.db() as db:
        set_clinic(db, asleep.id, timezone="America/New_York")  # 02:30 or 03:30 there: not yet morning
        open_clinic(db, riverside.id)
        db.execute(update(Submission).where(Submission.review_status == "pending").values(
            submitted_at=run_at - datetime.timedelta(days=1)))
        db.execute(update(Submission).where(Submission.payload["substance"]["text"].astext == "Penicillin")
                   .values(submitted_at=run_at - datetime.timedelta(days=2, hours=3)))
    mail.clear()

    sent = send_review_digests_now(app.registry, now=run_at)

    assert sent[str(riverside.id)] == 2 and sent[str(empty)] == 0 and str(asleep.id) not in sent
    subject = "3 submissions waiting in Riverside Clinic's review queue"
    assert recipients(mail, "Riverside Clinic") == sorted([clinician, both])
    assert not {quiet, admin, idle_clinician, asleep_clinician} & set(recipients(mail))
    message = only_message(mail, clinician, subject)
    assert "3 submissions wait for a clinician's decision in the review queue of Riverside Clinic" in message.text
    assert "The oldest has waited 2 days." in message.text and "2 days" in message.html
    for private in (*SUBSTANCES, "Ada", "Quill", riverside.patient_id):
        assert private not in message.text and private not in message.html, "never patient data"
    assert message.link(f"/clinics/{riverside.id}/queue")
    assert "This message is about the clinic Riverside Clinic" in message.text
    settings_link_in(message)

    assert send_review_digests_now(app.registry, now=run_at + datetime.timedelta(hours=1)) == {}
    assert len(recipients(mail, "Riverside Clinic")) == 2, "once a day"
    later = send_review_digests_now(app.registry, now=run_at + datetime.timedelta(hours=5))
    assert later[str(asleep.id)] == 1, "07:30 in New York"
    assert recipients(mail, "Night Clinic") == [asleep_clinician]
    assert "1 submission waiting in Night Clinic's review queue" in only_message(mail, asleep_clinician).subject
    with world.db() as db:
        assert db.scalar(select(func.count()).select_from(ReviewDigest).where(
            ReviewDigest.clinic_id == riverside.id)) == 1
    send_review_digests_now(app.registry, now=run_at + datetime.timedelta(days=8))
    with world.db() as db:
        assert db.scalar(select(func.count()).select_from(ReviewDigest).where(
            ReviewDigest.clinic_id == riverside.id, ReviewDigest.day == run_at.date())) == 0, "a week on, pruned"


def test_the_digest_is_an_hourly_periodic_task_and_ages_read_as_words():
    def runs_at(minute):
        return any(isinstance(task, send_review_digests.task_class)
                   for task in huey.read_periodic(datetime.datetime(2030, 1, 1, 9, minute)))

    assert runs_at(5) and not runs_at(6)
    start = datetime.datetime(2030, 1, 1, tzinfo=datetime.UTC)
    assert [waited(start, start + delta) for delta in (datetime.timedelta(seconds=20), datetime.timedelta(minutes=1),
                                                        datetime.timedelta(hours=5, minutes=59),
                                                        datetime.timedelta(days=1, hours=23))] == [
        "less than a minute", "1 minute", "5 hours", "1 day"]
