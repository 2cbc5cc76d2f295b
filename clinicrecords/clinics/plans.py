"""A clinic's plan features: what its plan includes of the API. Operators set them (`clinic set`); every
feature is on for a new clinic (and was switched on for existing ones) until an operator turns it off."""

from clinicrecords.api.problems import Problem

FEATURES = {
    "api_access": "API access",
    "api_addon": "the API add-on",
    "data_agreement": "an accepted API data agreement",
}


def plan_features(clinic):
    return {name: getattr(clinic, name) for name in FEATURES}


def require_features(clinic, *features):
    missing = [FEATURES[name] for name in features if not getattr(clinic, name)]
    if missing:
        raise Problem("plan_feature_missing", f"The clinic's plan does not include {' and '.join(missing)}.")
