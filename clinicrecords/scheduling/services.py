"""Appointment booking. Apps book free slots of clinicians' calendars and cancel what they booked; clinic
staff set working hours and block time (operator CLI). A referral is booked by the clinic alone: an
appointment may cite one only once the clinic has scheduled it."""

import datetime
import uuid

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from zope.interface import implementer

from clinicrecords.api.pagination import keyset_page
from clinicrecords.api.problems import Problem, invalid
from clinicrecords.clinical.services import referral_of
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.clock import now
from clinicrecords.patients.services import is_visible_patient, visible
from clinicrecords.providers.services import clinicians_among, provider_exists
from clinicrecords.scheduling.calendar import SLOT, clinic_zone, is_aligned, overlaps, within_hours
from clinicrecords.scheduling.models import Appointment, CalendarBlock, WorkingHours
from clinicrecords.scheduling.representations import is_editable_by
from clinicrecords.scheduling.interfaces import IAppointmentService


@implementer(IAppointmentService)
class AppointmentService:
    def __init__(self, db, clinic):
        self.db = db
        self.clinic = clinic

    def _visible(self):
        return visible(select(Appointment), Appointment.patient_id)

    def get(self, appointment_id):
        """The appointment, or None when absent or its patient restricted (one 404 for both)."""
        return self.db.scalar(self._visible().where(Appointment.id == appointment_id))

    def list(self, query, cursors):
        statement = self._visible()
        for name, column in (("patient_id", Appointment.patient_id), ("provider_id", Appointment.provider_id),
                             ("status", Appointment.status)):
            if query.get(name):
                statement = statement.where(column == query[name])
        if query.get("updated_since"):
            statement = statement.where(Appointment.updated_at >= query["updated_since"])
        if query.get("starts_from"):
            statement = statement.where(Appointment.starts_at >= query["starts_from"])
        if query.get("starts_before"):
            statement = statement.where(Appointment.starts_at < query["starts_before"])
        return keyset_page(cursors, self.db, statement, (Appointment.starts_at, Appointment.id), query)

    # Booking

    def book(self, data, owner_id):
        zone = clinic_zone(self.clinic)
        start = data["starts_at"].astimezone(datetime.UTC)
        self._check_start(start, zone)
        self._check_patient(data["patient_id"])
        if data.get("referral_id"):
            self._check_referral(data["referral_id"], data["patient_id"])
        fields = {"patient_id": data["patient_id"], "starts_at": start, "ends_at": start + SLOT,
                  "referral_id": data.get("referral_id"), "reason": data.get("reason"),
                  "booked_by_owner_id": owner_id}
        if data.get("provider_id"):
            provider_id = data["provider_id"]
            if not provider_exists(self.db, provider_id):
                raise invalid([{"pointer": "/provider_id", "message": "No clinician with this id in this clinic."}])
            if not self._at_work(provider_id, start, zone):
                raise Problem("out_of_office", "The clinician's calendar is blocked at that time (away, or "
                              "outside their working hours).")
            appointment = self._insert(provider_id, fields)
            if appointment is None:
                raise Problem("slot_taken", "The clinician already has an appointment in that slot.")
            return appointment
        for provider_id in self._eligible(data.get("specialty")):
            if self._at_work(provider_id, start, zone):
                appointment = self._insert(provider_id, fields)
                if appointment is not None:
                    return appointment
        raise Problem("no_provider_available", "No eligible clinician is free in that slot.")

    def _check_start(self, start, zone):
        if not is_aligned(start, zone):
            raise invalid([{"pointer": "/starts_at", "message": "Slots are 30 minutes long and start on the "
                            "hour or half hour of the clinic's local time."}])
        if start <= now():
            raise invalid([{"pointer": "/starts_at", "message": "The slot has already begun."}])

    def _check_patient(self, patient_id):
        if not is_visible_patient(self.db, patient_id):
            raise invalid([{"pointer": "/patient_id", "message": "No patient with this id in this clinic."}])

    def _check_referral(self, referral_id, patient_id):
        referral = referral_of(self.db, referral_id)
        if referral is None or referral.patient_id != patient_id:
            raise invalid([{"pointer": "/referral_id", "message": "No referral with this id for this patient."}])
        if referral.status != "scheduled":
            raise Problem("referral_not_scheduled", "The clinic books referrals itself; an appointment may cite "
                          f"a referral only once the clinic has scheduled it (this one is {referral.status}).")

    def _eligible(self, specialty):
        """Clinicians with working hours, in a stable order (family name, id), narrowed by specialty."""
        return [p.id for p in clinicians_among(self.db, select(WorkingHours.provider_id))
                if specialty is None or specialty in p.specialties]

    def _at_work(self, provider_id, start, zone):
        hours = self.db.scalars(select(WorkingHours).where(WorkingHours.provider_id == provider_id)).all()
        if not within_hours(hours, start, zone):
            return False
        blocks = self.db.scalars(select(CalendarBlock).where(
            CalendarBlock.provider_id == provider_id, CalendarBlock.starts_at < start + SLOT,
            CalendarBlock.ends_at > start)).all()
        return not any(overlaps(block, start) for block in blocks)

    def _insert(self, provider_id, fields):
        """The new appointment, or None when the slot is already booked (also by a concurrent request, which
        the unique index makes us wait for)."""
        appointment = Appointment(id=uuid.uuid4(), provider_id=provider_id, status="booked", **fields)
        try:
            with self.db.begin_nested():
                self.db.add(appointment)
                self.db.flush()
        except IntegrityError:
            return None
        return appointment

    # Cancelling

    def cancel(self, appointment, owner_id):
        if not is_editable_by(appointment, owner_id):
            raise Problem("appointment_clinic_managed", "This appointment was booked by the clinic or another "
                          "app; only the app that booked an appointment can cancel it.")
        if appointment.status == "booked":
            appointment.status = "cancelled"
            appointment.cancelled_at = now()
            self.db.flush()
        return appointment


def appointment_service_factory(context, request):
    scope = clinic_scope(context)
    return AppointmentService(scope.db, scope.clinic)
