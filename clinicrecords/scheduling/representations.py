from clinicrecords.api.render import iso


def is_editable_by(appointment, owner_id):
    return appointment.booked_by_owner_id is not None and appointment.booked_by_owner_id == owner_id


def appointment_json(appointment, request):
    return {
        "id": str(appointment.id),
        "patient_id": str(appointment.patient_id),
        "provider_id": str(appointment.provider_id),
        "starts_at": iso(appointment.starts_at),
        "ends_at": iso(appointment.ends_at),
        "status": appointment.status,
        "referral_id": str(appointment.referral_id) if appointment.referral_id else None,
        "reason": appointment.reason,
        "source": "clinic" if appointment.booked_by_owner_id is None else "api",
        "editable": is_editable_by(appointment, request.identity.owner_id),
        "cancelled_at": iso(appointment.cancelled_at) if appointment.cancelled_at else None,
        "created_at": iso(appointment.created_at),
        "updated_at": iso(appointment.updated_at),
    }
