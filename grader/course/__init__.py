"""The lesson format: Markdown extensions that render course features, and the course checker."""
