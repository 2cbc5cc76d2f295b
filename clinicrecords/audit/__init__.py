"""The audit trail: who read or wrote which patient records, appended to each clinic's `audit_log`.

Collections holding patient records declare `audited = True` on their resource class; the tweens in
`clinicrecords.audit.tweens` record every request that reaches one, whatever its outcome.
"""

from pyramid.tweens import EXCVIEW


def includeme(config):
    # In the request's transaction, so a successful write and its audit row commit together.
    config.add_tween("clinicrecords.audit.tweens.audit_in_transaction_tween_factory",
                     under="pyramid_tm.tm_tween_factory", over=EXCVIEW)
    # Outside pyramid_tm: refusals, failures and aborted commits, in a short transaction of their own.
    config.add_tween("clinicrecords.audit.tweens.audit_apart_tween_factory",
                     over="pyramid_tm.tm_tween_factory")
