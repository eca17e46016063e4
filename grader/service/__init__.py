"""The grader service: the built site and the grading API on one address, with durable storage.

Modules:

- ``settings``       every knob, from the environment or a TOML settings file
- ``storage``        tables and the database engine (SQLite by default, PostgreSQL by URL)
- ``tokens``         token generation and hashing (only hashes are stored)
- ``roster``         ``python -m grader roster``: learners and their tokens
- ``auth``           who is calling: learner or instructor
- ``body_limit``     ASGI middleware refusing oversized bodies before they are parsed
- ``rate_limit``     per-learner, per-question attempt limit (counted in the database)
- ``grader_client``  the one place that calls ``grader.grading.grade``
- ``submissions``    storing a graded submission exactly once (idempotency keys)
- ``results``        a learner's past results and the instructor gradebook
- ``schemas``        request and response models (the OpenAPI document)
- ``api``            the FastAPI routes under ``/api``
- ``app``            the application: API, error handlers, static site
- ``cli``            ``python -m grader serve``
"""
