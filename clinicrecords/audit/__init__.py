"""The audit trail: who read or wrote which patient records, appended to each clinic's `audit_log`.

Collections holding patient records declare `audited = True` on their resource class; the tween in
`clinicrecords.audit.tweens` records every request that reaches one, whatever its outcome.
"""

from pyramid.tweens import EXCVIEW


def includeme(config):
    # In the request's transaction, so a successful write and its audit row commit together; what does not
    # commit is written apart afterwards (clinicrecords.db.commit_or_apart).
    config.add_tween("clinicrecords.audit.tweens.audit_tween_factory", under="pyramid_tm.tm_tween_factory",
                     over=EXCVIEW)
