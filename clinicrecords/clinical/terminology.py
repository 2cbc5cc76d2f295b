"""Code sets the clinical routes check against.

- ICD-10: the ICD-10-CM code set (CMS release shipped in the `simple-icd-10-cm` package, April 2026 at the
  time of writing). A code must name a category or subcategory (E11, E11.9, E119); chapters and blocks
  (A00-A09) are not codes. Referral reason codes are checked against the same verified list.
- RxNorm: only RxCUIs on the verified list in `data/rxnorm_verified.tsv`
  (docs/decisions/0012-clinical-items-review-queue.md, "RxNorm"), plus the operator's own file named by the
  setting `clinical.rxnorm_extra_file` (same format).
"""

import functools
import importlib.resources
import warnings

# Free-text "substances" that are really a statement of no known allergies (compared case-insensitively,
# ignoring punctuation and spaces). That statement is its own explicit kind.
NO_ALLERGY_WORDS = frozenset({
    "none", "nka", "nkda", "nkfa", "nil", "no", "na", "n/a", "noallergies", "noknownallergies",
    "noknowndrugallergies", "noknownallergy", "noknowndrugallergy", "nokda", "unknown",
})


def load_icd10():
    """The ICD-10-CM code set, loaded (about 7 s of CPU, once per process)."""
    _icd10()


@functools.cache
def _icd10():
    # The package reads its data with a deprecated importlib.resources call at import time.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import simple_icd_10_cm
    return simple_icd_10_cm


def icd10(code):
    """The code in its dotted form (E11.9), or None when it is not a real ICD-10-CM code."""
    if not isinstance(code, str):
        return None
    code = code.strip().upper()
    icd = _icd10()
    if not code or not icd.is_valid_item(code) or not icd.is_category_or_subcategory(code):
        return None
    return icd.add_dot(code) if "." not in code else code


def icd10_description(code):
    return _icd10().get_description(code)


def _read_rxnorm(text):
    entries = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        rxcui, _, name = line.partition("\t")
        if not rxcui.isdigit() or not name.strip():
            raise ValueError(f"bad RxNorm list line: {line!r}")
        entries[rxcui] = name.strip()
    return entries


@functools.cache
def _shipped_rxnorm():
    return _read_rxnorm(importlib.resources.files(__package__).joinpath("data/rxnorm_verified.tsv")
                        .read_text(encoding="utf-8"))


# The application's RxNormList (with the operator's extra file), kept in the registry by clinicrecords.clinical.
RXNORM = "clinical.rxnorm"


class RxNormList:
    """The verified RxNorm list: the shipped file plus the operator's extension file, if any."""

    def __init__(self, extra_file=None):
        self.entries = dict(_shipped_rxnorm())
        if extra_file:
            with open(extra_file, encoding="utf-8") as f:
                self.entries.update(_read_rxnorm(f.read()))

    def name(self, rxcui):
        return self.entries.get(rxcui)

    def __contains__(self, rxcui):
        return rxcui in self.entries


def is_no_allergy_word(text):
    squashed = "".join(ch for ch in text.lower() if ch.isalnum() or ch == "/")
    return squashed in NO_ALLERGY_WORDS or squashed.replace("/", "") in NO_ALLERGY_WORDS
