import webtest


def test_healthz_answers_200_when_the_database_answers(testapp):
    response = testapp.get("/healthz", status=200)
    assert response.json == {"status": "ok"}


def test_healthz_answers_503_problem_when_the_database_does_not(make_app, tmp_path):
    app = webtest.TestApp(make_app(database_url=f"postgresql+psycopg://nobody@/nowhere?host={tmp_path}"))
    response = app.get("/healthz", status=503)
    assert response.content_type == "application/problem+json"
    assert response.json["code"] == "service_unavailable"
