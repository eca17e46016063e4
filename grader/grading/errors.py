"""Errors of the grading API."""

from __future__ import annotations


class SubmissionError(ValueError):
    """A submission that cannot be graded at all (exit code 2, HTTP 4xx). The message names the
    question and says what is wrong."""
