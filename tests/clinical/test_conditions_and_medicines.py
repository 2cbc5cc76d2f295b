import pytest
from fhir.resources.R4B.bundle import Bundle
from fhir.resources.R4B.condition import Condition
from fhir.resources.R4B.medicationstatement import MedicationStatement


def _pointers(response):
    assert response.json["code"] == "invalid_request"
    return {error["pointer"] for error in response.json["errors"]}


@pytest.mark.parametrize("code", ["E11.99X", "ZZZ.9", "A00-A09", "11.9", "e1", ""])
def test_an_icd10_code_that_is_not_real_is_invalid_request(clinic, code):
    response = clinic.send("conditions", {"patient_id": clinic.patient_id, "icd10_code": code}, status=400)
    assert _pointers(response) == {"/icd10_code"}


@pytest.mark.parametrize("fields, pointer", [
    ({"clinical_status": "entered_in_error"}, "/clinical_status"),
    ({"clinical_status": "better"}, "/clinical_status"),
    ({"display": "x" * 201}, "/display"),
    ({"note": "x" * 2001}, "/note"),
    ({"onset_date": "2020-05-01", "abatement_date": "2020-04-01"}, "/abatement_date"),
    ({"chronic": True}, "/chronic"),
])
def test_condition_refusals(clinic, fields, pointer):
    body = {"patient_id": clinic.patient_id, "icd10_code": "I10", **fields}
    assert pointer in _pointers(clinic.send("conditions", body, status=400))


def test_condition_reaches_the_chart_and_reads_as_fhir(clinic, testapp):
    sent = clinic.send("conditions", {"patient_id": clinic.patient_id, "icd10_code": "e119"}).json["data"]
    assert sent["payload"]["icd10_code"] == "E11.9"
    assert sent["payload"]["display"] == "Type 2 diabetes mellitus without complications"
    clinic.accept(sent["submission_id"])
    url = clinic.url(f"conditions/{sent['target_id']}")
    condition = testapp.get(url, headers=clinic.headers).json["data"]
    assert condition["icd10_code"] == "E11.9" and condition["accepted_by"] == "clinic"
    fhir = testapp.get(url, headers={**clinic.headers, "Accept": "application/fhir+json"}).json
    Condition.model_validate(fhir)
    assert fhir["code"]["coding"][0] == {"system": "http://hl7.org/fhir/sid/icd-10-cm", "code": "E11.9",
                                         "display": "Type 2 diabetes mellitus without complications"}
    assert all(set(ext) == {"url", "valueString"} for ext in fhir["extension"])

    assert _pointers(clinic.send(f"conditions/{sent['target_id']}", {"icd10_code": "I10"}, method="patch",
                                 status=400)) == {"/icd10_code"}
    assert _pointers(clinic.send(f"conditions/{sent['target_id']}", {"clinical_status": "entered_in_error",
                                                                     "note": "x"}, method="patch",
                                 status=400)) == {"/clinical_status"}
    change = clinic.send(f"conditions/{sent['target_id']}", {"clinical_status": "resolved",
                                                             "abatement_date": "2024-01-01"}, method="patch")
    clinic.accept(change.json["data"]["submission_id"])
    assert testapp.get(url, headers=clinic.headers).json["data"]["clinical_status"] == "resolved"
    bundle = testapp.get(clinic.url("conditions"), headers={**clinic.headers, "Accept": "application/fhir+json"})
    Bundle.model_validate(bundle.json)


@pytest.mark.parametrize("fields, pointer", [
    ({"medication": {"rxnorm": "123456789"}}, "/medication/rxnorm"),
    ({"medication": {"text": "Metformin", "rxnorm": "1"}}, "/medication/rxnorm"),
    ({"medication": {}}, "/medication"),
    ({"status": "entered_in_error"}, "/status"),
    ({"status": "taking"}, "/status"),
    ({"dosage_text": "x" * 201}, "/dosage_text"),
    ({"effective_start": "2024-02-01", "effective_end": "2024-01-01"}, "/effective_end"),
])
def test_medication_statement_refusals(clinic, fields, pointer):
    body = {"patient_id": clinic.patient_id, "medication": {"text": "Metformin"}, **fields}
    assert pointer in _pointers(clinic.send("medication-statements", body, status=400))


def test_reported_medicine_reaches_the_chart_and_reads_as_fhir(clinic, testapp):
    sent = clinic.send("medication-statements", {"patient_id": clinic.patient_id, "medication": {"rxnorm": "6809"},
                                                 "dosage_text": "500 mg twice a day"}).json["data"]
    assert sent["resource_type"] == "medication_statement" and sent["payload"]["medication"]["text"] == "metformin"
    clinic.accept(sent["submission_id"])
    url = clinic.url(f"medication-statements/{sent['target_id']}")
    fhir = testapp.get(url, headers={**clinic.headers, "Accept": "application/fhir+json"}).json
    MedicationStatement.model_validate(fhir)
    assert fhir["medicationCodeableConcept"]["coding"][0]["code"] == "6809"
    assert _pointers(clinic.send(f"medication-statements/{sent['target_id']}", {"medication": {"text": "x"}},
                                 method="patch", status=400)) == {"/medication"}
    retract = clinic.send(f"medication-statements/{sent['target_id']}", {"status": "entered_in_error"},
                          method="patch").json["data"]
    clinic.accept(retract["submission_id"])
    assert testapp.get(url, headers=clinic.headers).json["data"]["status"] == "entered_in_error"


def test_an_operator_extends_the_rxnorm_list(make_app, world, tmp_path):
    import webtest

    from tests.review.conftest import Clinic

    extra = tmp_path / "rxnorm_extra.tsv"
    extra.write_text("# local additions\n1049221\tacetaminophen / oxycodone\n")
    app = make_app(**{"clinical.rxnorm_extra_file": str(extra)})
    clinic = Clinic(webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"}), world, world.connected())
    sent = clinic.send("medication-statements", {"patient_id": clinic.patient_id,
                                                 "medication": {"rxnorm": "1049221"}}).json["data"]
    assert sent["payload"]["medication"]["text"] == "acetaminophen / oxycodone"
