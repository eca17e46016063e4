"""Exercises: one question a YAML file under ``exercises/``; schema, loading and the public view."""
