"""Tokens: 256 random bits, shown once, stored only as a SHA-256 hash.

A token has 256 bits of entropy, so a plain (unsalted) SHA-256 is enough to make a leaked table
useless, and it lets the service find a caller with one indexed lookup.
"""

from __future__ import annotations

import hashlib
import secrets

LEARNER_PREFIX = "crs_"
INSTRUCTOR_PREFIX = "crsi_"


def new_token(prefix: str = LEARNER_PREFIX) -> str:
    return prefix + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
