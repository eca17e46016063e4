"""Who is calling: a learner (token from the roster) or the instructor.

Both send ``Authorization: Bearer <token>``. Only SHA-256 hashes of tokens are stored, so a
lookup is one indexed query; the instructor token from the settings is compared in constant time.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import select

from grader.service.storage import instructor_tokens, learners
from grader.service.tokens import hash_token

bearer = HTTPBearer(
    auto_error=False, description="A learner token (roster) or the instructor token"
)

MAX_TOKEN_LENGTH = 200


@dataclass(frozen=True)
class Learner:
    id: int
    name: str


def _token(credentials: HTTPAuthorizationCredentials | None) -> str:
    if credentials is None or not credentials.credentials:
        raise HTTPException(
            401,
            "missing token: send 'Authorization: Bearer <token>'",
            headers={"WWW-Authenticate": "Bearer"},
        )
    token = credentials.credentials
    if len(token) > MAX_TOKEN_LENGTH:
        raise HTTPException(401, "unknown token", headers={"WWW-Authenticate": "Bearer"})
    return token


def current_learner(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Learner:
    token = _token(credentials)
    engine = request.app.state.engine
    with engine.connect() as conn:
        row = conn.execute(
            select(learners.c.id, learners.c.name).where(
                learners.c.token_hash == hash_token(token), learners.c.active.is_(True)
            )
        ).first()
    if row is None:
        raise HTTPException(
            401,
            "unknown token: ask your instructor for yours (python -m grader roster add NAME)",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return Learner(id=row.id, name=row.name)


def require_instructor(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> None:
    token = _token(credentials)
    configured: str = request.app.state.settings.instructor_token
    if configured and hmac.compare_digest(token.encode(), configured.encode()):
        return
    with request.app.state.engine.connect() as conn:
        row = conn.execute(
            select(instructor_tokens.c.id).where(
                instructor_tokens.c.token_hash == hash_token(token)
            )
        ).first()
    if row is None:
        raise HTTPException(403, "this endpoint needs the instructor token")


LearnerDep = Annotated[Learner, Depends(current_learner)]
InstructorDep = Annotated[None, Depends(require_instructor)]
