"""Inputs (issue 9): UTF-16 text with or without a byte-order mark is read (before: "binary data"); encrypted PDFs
that open with an empty password are read, AES included (before: "damaged", `cryptography` was missing);
password-protected ones say so. Test PDFs are encrypted here with pypdf's own writer."""
from __future__ import annotations

import io

import pytest
from pypdf import PdfReader, PdfWriter

from rag.loaders import load_document
from rag.types import IngestError
from tests.test_loaders import make_pdf

TEXT = "한빛랩스(Hanbit Labs)는 부산에 있다.\nHelix Labs was founded in 2019.\n日本語も少し。"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_text_is_read(encoding):
    data = TEXT.encode(encoding)  # "utf-16" / "utf-32" write a byte-order mark, -le / -be do not
    assert load_document("notes.txt", data) == TEXT
    assert load_document("notes.md", data) == TEXT


def test_utf16_html_and_windows_line_ends():
    html = "<html><body><h1>제목</h1><p>Helix Labs is in <b>Busan</b>.</p></body></html>"
    assert load_document("page.html", html.encode("utf-16")) == "제목\nHelix Labs is in Busan."
    assert load_document("a.txt", "첫 줄\r\n둘째 줄\r\n".encode("utf-16-le")) == "첫 줄\n둘째 줄"


@pytest.mark.parametrize("data, words", [
    (bytes(range(256)) * 8, "binary"),  # NULs everywhere, no UTF-16 pattern
    (b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" * 40, "binary"),
    (b"\xff\xfe" + b"\x00\xd8" * 3, "not valid UTF-16"),  # a BOM, then lone surrogates
    ("\x01\x02\x03\x04\x05".encode("utf-16-le") * 30, "binary control characters"),
])
def test_binary_is_still_refused(data, words):
    with pytest.raises(IngestError, match=words):
        load_document("x.txt", data)


def encrypted(plain: bytes, user_password: str, algorithm: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(plain)))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm=algorithm)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


PLAIN = make_pdf(["Helix Labs is headquartered in Busan.", "Second line (v2)."])


@pytest.mark.parametrize("algorithm", ["AES-256", "AES-128", "RC4-128"])
def test_a_pdf_encrypted_with_an_empty_password_is_read(algorithm):
    data = encrypted(PLAIN, "", algorithm)
    assert PdfReader(io.BytesIO(data)).is_encrypted
    assert "Helix Labs is headquartered in Busan." in load_document("locked.pdf", data)


@pytest.mark.parametrize("algorithm", ["AES-256", "RC4-128"])
def test_a_password_protected_pdf_says_so(algorithm):
    with pytest.raises(IngestError, match="locked.pdf is a password-protected PDF; remove the password"):
        load_document("locked.pdf", encrypted(PLAIN, "user-secret", algorithm))


def test_cryptography_is_installed_beside_our_pins():
    import cryptography  # noqa: F401  (pinned in requirements.txt; pypdf needs it for AES)
