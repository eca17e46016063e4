"""The API on both databases (SQLite and PostgreSQL): submit, replay, own results, gradebook,
isolation between learners, limits, and clear 4xx answers for bad input."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from tests.service.service_client import Service

SUBMIT = "/api/lessons/8/submissions"
RIGHT = {"l08-practice-7b-states": "112 GB"}
WRONG = {"l08-practice-why-dp-fails": "a"}


def post(service: Service, headers: dict[str, str], answers: dict, key: str, lesson: int = 8):
    return service.client.post(
        f"/api/lessons/{lesson}/submissions",
        json={"answers": answers},
        headers={**headers, "Idempotency-Key": key},
    )


def test_submit_grades_each_question_and_a_retry_is_not_counted(service: Service) -> None:
    alice = service.learner("alice")
    first = post(service, alice, {**RIGHT, **WRONG}, "k-1")
    assert first.status_code == 201, first.text
    body = first.json()
    assert body["replayed"] is False
    tests = {t["name"]: t for t in body["result"]["tests"]}
    assert tests["l08-practice-7b-states"]["status"] == "passed"
    assert tests["l08-practice-7b-states"]["score"] == tests["l08-practice-7b-states"]["max_score"]
    assert tests["l08-practice-why-dp-fails"]["status"] == "failed"
    assert tests["l08-practice-why-dp-fails"]["output"]  # feedback text for the wrong choice

    again = post(service, alice, {**RIGHT, **WRONG}, "k-1")
    assert again.status_code == 200
    assert again.json()["replayed"] is True
    assert again.json()["submission_id"] == body["submission_id"]

    mine = service.client.get("/api/me/results?lesson=8", headers=alice).json()
    assert mine["learner"] == "alice"
    by_question = {r["question"]: r for r in mine["results"]}
    assert by_question["l08-practice-7b-states"]["attempts"] == 1
    assert by_question["l08-practice-7b-states"]["last_answer"] == "112 GB"
    assert by_question["l08-practice-why-dp-fails"]["last_status"] == "failed"


def test_same_key_for_other_answers_is_refused(service: Service) -> None:
    alice = service.learner("alice")
    assert post(service, alice, RIGHT, "k").status_code == 201
    reused = post(service, alice, {"l08-practice-7b-states": "12 GB"}, "k")
    assert reused.status_code == 409
    assert "already used" in reused.json()["detail"]


def test_a_learner_never_sees_another_learners_data(service: Service) -> None:
    alice, bob = service.learner("alice"), service.learner("bob")
    assert post(service, alice, RIGHT, "a-1").status_code == 201
    bobs = service.client.get("/api/me/results", headers=bob).json()
    assert bobs == {"learner": "bob", "results": []}
    # Bob replaying Alice's key stores a submission of Bob's own, never returns Alice's.
    replay = post(service, bob, RIGHT, "a-1")
    assert replay.status_code == 201 and replay.json()["replayed"] is False
    for path in ("/api/instructor/gradebook", "/api/instructor/gradebook.csv"):
        assert service.client.get(path, headers=alice).status_code == 403
        assert service.client.get(path).status_code == 401


def test_gradebook_json_and_csv(service: Service) -> None:
    alice, bob = service.learner("alice"), service.learner("=bob")
    post(service, alice, {"l08-practice-7b-states": "12 GB"}, "1")
    post(service, alice, RIGHT, "2")
    post(service, bob, WRONG, "3")
    rows = service.client.get("/api/instructor/gradebook", headers=service.instructor).json()
    by_key = {(r["learner"], r["question"]): r for r in rows}
    states = by_key[("alice", "l08-practice-7b-states")]
    assert states["attempts"] == 2
    assert states["best_score"] == states["max_score"] > 0
    assert states["lesson"] == 8 and states["last_submission_at"]
    assert by_key[("=bob", "l08-practice-why-dp-fails")]["best_score"] == 0

    only_11 = service.client.get("/api/instructor/gradebook?lesson=11", headers=service.instructor)
    assert only_11.json() == []

    response = service.client.get("/api/instructor/gradebook.csv", headers=service.instructor)
    assert response.headers["content-type"].startswith("text/csv")
    table = list(csv.DictReader(io.StringIO(response.text)))
    assert list(table[0]) == [
        "learner", "lesson", "question", "best_score", "max_score", "attempts",
        "last_submission_at",
    ]  # fmt: skip
    assert {r["learner"] for r in table} == {"alice", "'=bob"}  # no spreadsheet formula
    assert [r["attempts"] for r in table if r["question"] == "l08-practice-7b-states"] == ["2"]


def test_rate_limit_per_learner_and_question_is_stated(service: Service) -> None:
    limit = service.settings.rate_limit_attempts
    alice, bob = service.learner("alice"), service.learner("bob")
    for n in range(limit):
        assert post(service, alice, WRONG, f"w{n}").status_code == 201
    refused = post(service, alice, WRONG, "one-more")
    assert refused.status_code == 429
    body = refused.json()
    assert body["limit"] == limit and body["window_seconds"] == service.settings.rate_limit_window_s
    assert body["question"] == "l08-practice-why-dp-fails"
    assert f"{limit} per learner and question" in body["detail"]
    assert int(refused.headers["Retry-After"]) >= 1
    # Other questions and other learners are not affected; a replay is not an attempt.
    assert post(service, alice, RIGHT, "other-question").status_code == 201
    assert post(service, bob, WRONG, "bob").status_code == 201
    assert post(service, alice, WRONG, "w0").status_code == 200


def test_health_version_and_openapi(service: Service) -> None:
    assert service.client.get("/api/health").json()["status"] == "ok"
    assert 8 in service.client.get("/api/version").json()["lessons"]
    spec = service.client.get("/api/openapi.json").json()
    assert "/api/lessons/{lesson}/submissions" in spec["paths"]
    assert "/api/instructor/gradebook.csv" in spec["paths"]


JSON = {"Content-Type": "application/json"}
BAD = [
    ("malformed JSON", {"content": b'{"answers": {', "headers": JSON}, 400, "not valid JSON"),
    ("not an object", {"json": ["x"]}, 422, "body"),
    ("unknown field", {"json": {"answers": RIGHT, "learner": "bob"}}, 422, "learner"),
    ("no answers", {"json": {"answers": {}}}, 422, "no answers"),
    ("unknown question", {"json": {"answers": {"l99-nope": "1"}}}, 422, "no question 'l99-nope'"),
    ("wrong type", {"json": {"answers": {"l08-practice-7b-states": {"a": [1]}}}}, 422, "answers"),
]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
@pytest.mark.parametrize(
    ("case", "request_kwargs", "status", "message"), BAD, ids=[b[0] for b in BAD]
)
def test_bad_input_gets_a_4xx_with_a_message(
    service: Service, case: str, request_kwargs: dict, status: int, message: str
) -> None:
    alice = service.learner("alice")
    kwargs = dict(request_kwargs)
    kwargs["headers"] = {**alice, **kwargs.get("headers", {})}
    response = service.client.post(SUBMIT, **kwargs)
    assert response.status_code == status, response.text
    assert message in response.json()["detail"]
    assert "Traceback" not in response.text


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_tokens_unknown_lesson_and_oversized_bodies(service: Service) -> None:
    alice = service.learner("alice")
    for headers in ({}, {"Authorization": "Bearer crs_wrong"}, {"Authorization": "Basic x"}):
        refused = service.client.post(SUBMIT, json={"answers": RIGHT}, headers=headers)
        assert refused.status_code in (401, 403)
        assert "token" in refused.json()["detail"] or "Not authenticated" in refused.text
    unknown = post(service, alice, RIGHT, "k", lesson=99)
    assert unknown.status_code == 404 and "no exercises for lesson 99" in unknown.json()["detail"]
    assert service.client.get("/api/nothing/here").status_code == 404

    limit = service.settings.max_body_bytes
    big = {"answers": {"l08-code-model-state-bytes": "#" * (limit + 10)}}
    too_big = service.client.post(SUBMIT, json=big, headers=alice)
    assert too_big.status_code == 413
    assert str(limit) in too_big.json()["detail"]

    def chunks():  # no Content-Length: counted while it arrives
        for _ in range(limit // 1000 + 2):
            yield b" " * 1000

    streamed = service.client.post(
        SUBMIT, content=chunks(), headers={**alice, "Content-Type": "application/json"}
    )
    assert streamed.status_code == 413
    mine = service.client.get("/api/me/results", headers=alice).json()
    assert mine["results"] == []  # nothing refused was stored


HOSTILE = {
    "escape": (
        "import os, pathlib\n"
        "pathlib.Path({marker!r}).write_text('pwned')\n"
        "os.system('touch ' + {marker!r} + '2')\n"
        "def model_state_bytes(params, dp, zero):\n    return 16 * params\n"
    ),
    "forever": "def model_state_bytes(params, dp, zero):\n    while True:\n        pass\n",
    "fake-pass": (
        "import sys\nsys.exit(0)\ndef model_state_bytes(params, dp, zero):\n    return 0\n"
    ),
    "always-equal": (
        "class Anything(float):\n    def __eq__(self, other):\n        return True\n"
        "    __le__ = __ge__ = __lt__ = __gt__ = __eq__\n"
        "def model_state_bytes(params, dp, zero):\n    return Anything(0)\n"
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_code_is_graded_in_the_sandbox_never_a_5xx(
    service: Service, tmp_path: Path, name: str
) -> None:
    marker = str(tmp_path / "escaped")
    code = HOSTILE[name].format(marker=marker)
    alice = service.learner("alice")
    response = post(service, alice, {"l08-code-model-state-bytes": code}, f"hostile-{name}")
    assert response.status_code in (201, 422), response.text
    assert "Traceback (most recent call last)" not in response.text
    if response.status_code == 201:
        test = response.json()["result"]["tests"][0]
        assert test["status"] == "failed" and test["score"] < test["max_score"], test
        assert test["output"]
    assert not Path(marker).exists() and not Path(marker + "2").exists()
