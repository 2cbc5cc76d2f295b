"""The answers' metrics (requests counted and timed by route template, method and status, refusals by problem
code, requests in flight), kept in the process's memory by each request and written to the metrics by
`every_second.READINGS`: once a second, when the process answers a scrape, and when it exits.

With several processes every change of a metric is a write to the process's file under PROMETHEUS_MULTIPROC_DIR,
and a histogram's observation takes two; a request made five. Now it appends one tuple and adds to and takes from
a set, which the GIL keeps whole without a lock, and a second's answers are written as one sum per label set."""

import bisect
import collections
import os
import threading

from clinicrecords.observability.metrics import DURATION_BUCKETS, HTTP_DURATION, HTTP_IN_FLIGHT, HTTP_REQUESTS, \
    REFUSALS

# The histogram's own bounds: its last bucket is +Inf.
_BOUNDS = (*DURATION_BUCKETS, float("inf"))


class AnswerTally:
    def __init__(self):
        self._answered = collections.deque()
        self._in_flight = set()
        self._reading = threading.Lock()  # the reader's, never a request's: two reads must not take the same answers

    def started(self, token):
        self._in_flight.add(token)

    def answered(self, token, route, method, status, seconds, problem_code):
        """`problem_code` for an answer of 400 or more (None when it carries none: a page)."""
        self._in_flight.discard(token)
        self._answered.append((route, method, status, seconds, problem_code))

    def read(self):
        with self._reading:
            HTTP_IN_FLIGHT.set(len(self._in_flight))
            self._write(*self._sums())

    def _sums(self):
        counted, timed, refused = collections.Counter(), {}, collections.Counter()
        taken = self._answered.popleft
        for _ in range(len(self._answered)):  # what each request appends meanwhile waits for the next read
            route, method, status, seconds, problem_code = taken()
            counted[route, method, status] += 1
            sums = timed.get((route, method))
            if sums is None:
                sums = timed[route, method] = [0.0, [0] * len(_BOUNDS)]
            sums[0] += seconds
            sums[1][bisect.bisect_left(_BOUNDS, seconds)] += 1
            if status >= 400:
                refused[problem_code or "other"] += 1
        return counted, timed, refused

    @staticmethod
    def _write(counted, timed, refused):
        for (route, method, status), count in counted.items():
            HTTP_REQUESTS.labels(route, method, str(status)).inc(count)
        for (route, method), (total, buckets) in timed.items():
            _observed(HTTP_DURATION.labels(route, method), total, buckets)
        for code, count in refused.items():
            REFUSALS.labels(code).inc(count)

    def _after_fork(self):
        # The parent's answers are the parent's to write; a forked child has answered none.
        self._answered = collections.deque()
        self._in_flight = set()
        self._reading = threading.Lock()


def _observed(histogram, total, buckets):
    """Many observations added to a histogram at once: what `Histogram.observe` does for each, summed (its
    values are per bucket, not cumulative). tests/observability/test_metrics.py checks the buckets a scrape shows
    against an observation's."""
    histogram._sum.inc(total)
    for value, count in zip(histogram._buckets, buckets):
        if count:
            value.inc(count)


ANSWERS = AnswerTally()
os.register_at_fork(after_in_child=ANSWERS._after_fork)
