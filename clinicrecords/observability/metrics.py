"""The service's own Prometheus metrics (prometheus_client), one module-level object each.

Several processes on a host (pserve's and the worker) write into prometheus_client's multiprocess directory
when PROMETHEUS_MULTIPROC_DIR is set before they start; GET /metrics in any of them answers the host's totals.
Gauges say how the processes' values add up (`multiprocess_mode`). No label ever holds a clinic's, a
patient's or a key's id: routes are templates, tasks are names, refusals are problem codes.
"""

from prometheus_client import Counter, Gauge, Histogram

# Requests take from a millisecond (a cached GET) to the pool's timeout (30 s by default).
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

HTTP_REQUESTS = Counter("clinicrecords_http_requests", "HTTP requests answered, by route template, method and status",
                        ["route", "method", "status"])
HTTP_DURATION = Histogram("clinicrecords_http_request_duration_seconds",
                          "Time from a request's arrival to its answer, by route template and method",
                          ["route", "method"], buckets=DURATION_BUCKETS)
HTTP_IN_FLIGHT = Gauge("clinicrecords_http_requests_in_flight", "Requests being answered now",
                       multiprocess_mode="livesum")
REFUSALS = Counter("clinicrecords_http_refusals", "Answers of 400 or more, by the problem code they carry",
                   ["code"])

TASK_FAILURES = Counter("clinicrecords_task_failures", "Background tasks that raised, by task name", ["task"])

DB_POOL_IN_USE = Gauge("clinicrecords_db_pool_connections_in_use",
                       "Pooled database connections checked out now", multiprocess_mode="livesum")
DB_POOL_WAITING = Gauge("clinicrecords_db_pool_checkouts_waiting",
                        "Checkouts waiting for a pooled connection (or for one to connect) now",
                        multiprocess_mode="livesum")
DB_POOL_REPLACED = Counter("clinicrecords_db_pool_connections_replaced",
                           "Pooled connections discarded for a fresh one: `server_gone` (a failover, a restart) or "
                           "`max_uses` (database.pool_max_uses)", ["reason"])

BACKUP_LAST_SUCCESS = Gauge("clinicrecords_backup_last_success_timestamp_seconds",
                            "When the last successful pgBackRest backup finished (Unix time), as the worker "
                            "last read it", multiprocess_mode="mostrecent")
BACKUP_READ_FAILURES = Counter("clinicrecords_backup_info_read_failures",
                               "Times the worker could not read `pgbackrest info`")

BUILD_INFO = Gauge("clinicrecords_build_info", "The running version (always 1)", ["version"],
                   multiprocess_mode="max")
