"""The worker announces tills that fell silent (listing.freshness.changed) once a minute."""

from huey import crontab

from clinicrecords.inventory import bands
from clinicrecords.inventory.services import network_projection, sweep_stale_tills
from clinicrecords.settings import app_settings
from clinicrecords.tasks import periodic_task


@periodic_task(crontab(minute="*"))
def sweep_tills(request):
    announced = sweep_stale_tills(request.db, network_projection(request.registry),
                                  bands.max_age(app_settings(request.registry).inventory))
    return [str(clinic_id) for clinic_id in announced]
