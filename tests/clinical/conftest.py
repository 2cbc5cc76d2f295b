from tests.review.conftest import clinic, recording_clinic  # noqa: F401  (shared fixtures)
