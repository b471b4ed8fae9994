"""Turn an uploaded file into plain text, and text into chunks.

``load_document(name, data)`` reads .txt .md .pdf .docx .html/.htm and raises ``IngestError``
with a plain message for anything it cannot read (empty, binary, damaged, too large, wrong
extension). ``split_text`` chunks with langchain's RecursiveCharacterTextSplitter, preferring
paragraph, line and sentence ends (Korean "다.", Chinese "。") over word breaks.
"""
from __future__ import annotations

import io
import re
import zipfile
from pathlib import PurePath

from rag.types import IngestError

MAX_FILE_BYTES = 20 * 1024 * 1024
SUPPORTED_EXTENSIONS = (".txt", ".md", ".pdf", ".docx", ".html", ".htm")
TEXT_ENCODINGS = ("utf-8-sig", "cp949", "euc-kr")  # cp949 is the superset most Korean files use

SEPARATORS = ["\n\n", "\n", "다. ", "。", "！", "？", ". ", "! ", "? ", "; ", "；", ", ", "，", " ", ""]


def _sniff(data: bytes) -> str | None:
    """What the bytes look like, whatever the extension says: 'pdf', 'docx', 'zip' or None."""
    head = data[:1024].lstrip()
    if head.startswith(b"%PDF-"):
        return "pdf"
    if data.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                return "docx" if "word/document.xml" in zf.namelist() else "zip"
        except zipfile.BadZipFile:
            return "zip"
    return None


_LOOKS_LIKE = {"pdf": "a PDF", "docx": "a Word (.docx) document", "zip": "a ZIP archive"}


_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"),
         (b"\xfe\xff", "utf-16"))


def _utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le' / 'utf-16-be' when the NUL bytes sit where UTF-16 puts them: the high byte of every ASCII
    character (spaces, newlines, digits, Latin letters), so Korean or Chinese prose has them too; else None."""
    head = data[:65536]
    if len(head) < 4:
        return None
    pairs = len(head) // 2
    even = head[0 : pairs * 2 : 2].count(0)
    odd = head[1 : pairs * 2 : 2].count(0)
    if odd >= pairs * 0.1 and even <= odd // 8:
        return "utf-16-le"
    if even >= pairs * 0.1 and odd <= even // 8:
        return "utf-16-be"
    return None


def _check_controls(name: str, text: str) -> str:
    controls = sum(1 for ch in text[:20000] if ord(ch) < 32 and ch not in "\n\r\t\f")
    if controls > max(8, len(text[:20000]) // 100):
        raise IngestError(f"{name} is not a text file: it contains binary control characters.")
    return text


def _decode_text(name: str, data: bytes) -> str:
    """Text of a file: UTF-32/UTF-16 by their byte-order mark, UTF-16 without one by where its NUL bytes sit,
    else UTF-8, CP949, EUC-KR. Binary data raises ``IngestError``."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return _check_controls(name, data.decode(encoding))
            except UnicodeDecodeError as exc:
                raise IngestError(f"{name} starts like {encoding.upper()} text (byte-order mark) but is not valid "
                                  f"{encoding.upper()} ({exc.reason} at byte {exc.start}).") from exc
    if b"\x00" in data[:65536]:
        encoding = _utf16_without_bom(data)
        if encoding is not None:
            try:
                return _check_controls(name, data.decode(encoding))
            except UnicodeDecodeError:
                pass  # NULs in a UTF-16-like pattern, but not UTF-16: binary
        raise IngestError(f"{name} is not a text file: it contains binary data (NUL bytes).")
    for encoding in TEXT_ENCODINGS:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        return _check_controls(name, text)
    raise IngestError(f"{name} could not be decoded as text (tried UTF-8, UTF-16, CP949, EUC-KR). "
                      "Save it as UTF-8 and upload it again.")


def _load_pdf(name: str, data: bytes) -> str:
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError, PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        # an encrypted PDF that opens with an empty user password (only printing/copying restricted) is read
        if reader.is_encrypted and not reader.decrypt(""):
            raise IngestError(f"{name} is a password-protected PDF; remove the password and upload it again.")
        pages = [page.extract_text() or "" for page in reader.pages]
    except IngestError:
        raise
    except FileNotDecryptedError as exc:
        raise IngestError(f"{name} is a password-protected PDF; remove the password and upload it again.") from exc
    except DependencyError as exc:  # AES needs the cryptography package (requirements.txt)
        raise IngestError(f"{name} is an AES-encrypted PDF and the 'cryptography' package is missing: "
                          "pip install -r requirements.txt, then upload it again.") from exc
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
        raise IngestError(f"{name} is a damaged PDF and could not be read ({type(exc).__name__}: {exc}).") from exc
    except Exception as exc:  # pypdf raises assorted errors on broken files
        raise IngestError(f"{name} is a damaged PDF and could not be read ({type(exc).__name__}).") from exc
    text = "\n\n".join(p.strip() for p in pages if p.strip())
    if not text.strip():
        raise IngestError(f"{name} has no extractable text (it may be a scanned image); "
                          "run OCR on it first or upload a text version.")
    return text


def _docx_heading(paragraph: object) -> str:
    """The Markdown marker of a Word heading paragraph ("Title" / "Heading 1" → "# ", "Heading 2" → "## " …), "" for
    any other: the document's structure survives as headings the sentence splitter reads (rag.sentences)."""
    style = getattr(getattr(paragraph, "style", None), "name", "") or ""
    if style == "Title":
        return "# "
    m = re.fullmatch(r"Heading ([1-6])", style)
    return "#" * int(m.group(1)) + " " if m else ""


def _load_docx(name: str, data: bytes) -> str:
    import docx

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises KeyError / BadZipFile / ValueError on broken files
        raise IngestError(f"{name} is a damaged Word document and could not be read ({type(exc).__name__}).") from exc
    parts = [_docx_heading(p) + p.text for p in document.paragraphs if p.text.strip()]
    for table in document.tables:
        for row in table.rows:
            cells = [c.text.strip() for c in row.cells if c.text.strip()]
            if cells:
                parts.append(" | ".join(cells))
    return "\n\n".join(parts)


_HTML_BLOCKS = ["p", "div", "li", "ul", "ol", "dl", "dt", "dd", "tr", "table", "section", "article", "header",
                "footer", "nav", "aside", "main", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "figure",
                "figcaption", "form", "hr", "title", "details", "summary"]


def _load_html(name: str, data: bytes) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(_decode_text(name, data), "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "head"]):
        tag.decompose()
    # block elements end lines; inline ones (<b>, <a>, <span>) stay inside their sentence
    for tag in soup.find_all(_HTML_BLOCKS):
        tag.insert_after("\n")
    for cell in soup.find_all(["td", "th"]):
        cell.insert_after(" | ")
    for br in soup.find_all("br"):
        br.replace_with("\n")
    text = soup.get_text()
    lines = [re.sub(r"[ \t\u00a0]+", " ", line).strip().removesuffix(" |").strip() for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def load_document(name: str, data: bytes) -> str:
    """Plain text of one file (``name`` decides the format). Raises ``IngestError`` with a plain message."""
    ext = PurePath(name).suffix.lower()
    if ext not in SUPPORTED_EXTENSIONS:
        raise IngestError(f"{name}: unsupported file type {ext or '(no extension)'!r}; "
                          f"supported: {', '.join(SUPPORTED_EXTENSIONS)}.")
    if len(data) == 0:
        raise IngestError(f"{name} is empty (0 bytes).")
    if len(data) > MAX_FILE_BYTES:
        raise IngestError(f"{name} is too large ({len(data) / 1e6:.1f} MB); the limit is "
                          f"{MAX_FILE_BYTES // (1024 * 1024)} MB per file.")
    kind = _sniff(data)
    expected = {".pdf": "pdf", ".docx": "docx"}.get(ext)
    if kind != expected and (kind is not None or expected is not None):
        looks = _LOOKS_LIKE.get(kind or "", "text or another format")
        raise IngestError(f"{name} does not match its extension {ext}: the content looks like {looks}. "
                          "Rename it with the right extension or export it again.")
    if ext == ".pdf":
        text = _load_pdf(name, data)
    elif ext == ".docx":
        text = _load_docx(name, data)
    elif ext in (".html", ".htm"):
        text = _load_html(name, data)
    else:
        text = _decode_text(name, data)
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise IngestError(f"{name} contains no text.")
    return text


def split_text(text: str, chunk_size: int = 800, overlap: int = 120) -> list[str]:
    """Chunks of at most ``chunk_size`` characters overlapping by about ``overlap``, cut at
    paragraph / line / sentence ends when possible."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=chunk_size, chunk_overlap=overlap, separators=SEPARATORS, keep_separator="end",
        strip_whitespace=True,
    )
    return [c for c in (s.strip() for s in splitter.split_text(text)) if c]
