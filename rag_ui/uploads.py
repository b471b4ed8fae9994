"""Checks on uploaded files that belong to the app, not the engine: the upload size limit.

Everything about a file's content (empty, binary, wrong type, corrupt) is judged by ``kb.ingest_bytes``, which
returns an error result in plain words and writes nothing.
"""
from __future__ import annotations

MAX_UPLOAD_MB = 20
ACCEPTED = ("txt", "md", "pdf", "docx", "html", "csv", "xlsx", "sqlite")  # the last three become tables


def size_problem(name: str, size: int, limit_mb: float | None = None) -> str | None:
    """A plain-words reason to refuse the file before ingesting, or None."""
    limit_mb = MAX_UPLOAD_MB if limit_mb is None else limit_mb
    if size > limit_mb * 1024 * 1024:
        return (f"{name} is {size / 1024 / 1024:.1f} MB; the limit is {limit_mb:g} MB. "
                "Split it into smaller files and upload those.")
    return None
