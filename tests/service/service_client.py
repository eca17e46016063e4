"""A test client of the service app, with helpers for learner and instructor headers."""

from __future__ import annotations

from dataclasses import dataclass

from grader.service.settings import Settings


@dataclass
class Service:
    client: object  # fastapi.testclient.TestClient
    engine: object
    settings: Settings

    def learner(self, name: str) -> dict[str, str]:
        from grader.service.roster import add_learner

        return {"Authorization": f"Bearer {add_learner(self.engine, name)}"}

    @property
    def instructor(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.settings.instructor_token}"}
