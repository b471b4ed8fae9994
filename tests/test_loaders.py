"""Every supported file type, and every kind of bad file, through rag.loaders."""
from __future__ import annotations

import io
import zipfile

import pytest

from rag.loaders import MAX_FILE_BYTES, load_document, split_text
from rag.types import IngestError


def make_pdf(lines: list[str]) -> bytes:
    """A minimal valid one-page PDF (Helvetica text), written by hand with a correct xref table."""
    ops = ["BT", "/F1 12 Tf", "72 720 Td"]
    for i, line in enumerate(lines):
        escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        ops.append(f"({escaped}) Tj" if i == 0 else f"0 -16 Td ({escaped}) Tj")
    ops.append("ET")
    stream = "\n".join(ops).encode("latin-1") if lines else b""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def make_docx(paragraphs: list[str], table: list[list[str]] | None = None) -> bytes:
    import docx

    document = docx.Document()
    for p in paragraphs:
        document.add_paragraph(p)
    if table:
        t = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                t.cell(r, c).text = value
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def make_zip(members: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    return buf.getvalue()


# ---- good files ------------------------------------------------------------------
def test_txt_and_md_utf8():
    assert load_document("a.txt", "카카오는 판교에 있다.\n".encode("utf-8")) == "카카오는 판교에 있다."
    assert load_document("a.md", "\ufeff# Title\n\nBody".encode("utf-8")) == "# Title\n\nBody"


def test_korean_text_in_cp949_is_decoded():
    data = "한빛랩스의 본사는 판교에 있다.".encode("cp949")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert load_document("legacy.txt", data) == "한빛랩스의 본사는 판교에 있다."


def test_html_drops_scripts_styles_and_markup():
    html = b"""<html><head><title>t</title><style>body{color:red}</style></head><body>
    <nav>menu</nav><script>var secret = 1;</script><h1>FAQ</h1><p>Remote work: <b>twice</b> a week.</p></body></html>"""
    text = load_document("faq.html", html)
    assert "FAQ" in text and "Remote work:" in text and "twice" in text
    assert "secret" not in text and "color:red" not in text and "<p>" not in text


def test_pdf_text_is_extracted():
    text = load_document("a.pdf", make_pdf(["Helix Labs is headquartered in Busan.", "Second line (v2)."]))
    assert "Helix Labs is headquartered in Busan." in text
    assert "Second line (v2)." in text


def test_docx_paragraphs_and_tables():
    data = make_docx(["보안 정책", "비밀번호는 90일마다 바꾼다."], table=[["항목", "주기"], ["백업", "매일"]])
    text = load_document("policy.docx", data)
    assert "비밀번호는 90일마다 바꾼다." in text
    assert "백업 | 매일" in text


# ---- bad files -------------------------------------------------------------------
@pytest.mark.parametrize("name, data, words", [
    ("empty.txt", b"", "empty"),
    ("binary.txt", b"abc\x00\x01\x02def" * 10, "binary"),
    ("corrupt.pdf", b"%PDF-1.4\n1 0 obj << /Type /Catalog >>\ngarbage without xref", "damaged PDF"),
    ("blank.pdf", make_pdf([]), "no extractable text"),
    ("renamed.docx", make_pdf(["a pdf"]), "looks like a PDF"),
    ("renamed.pdf", make_docx(["a word file"]), "looks like a Word"),
    ("archive.docx", b"PK\x03\x04" + b"\x00" * 40, "ZIP"),
    ("notes.txt", make_pdf(["a pdf"]), "looks like a PDF"),
    ("sheet.xlsx", b"whatever", "unsupported file type"),
    ("noext", b"hello", "unsupported file type"),
    ("broken.docx", make_zip({"word/document.xml": "<not xml"}), "damaged Word"),
    ("spaces.md", b"  \n\t\n ", "no text"),
])
def test_bad_files_raise_plain_ingest_errors(name, data, words):
    with pytest.raises(IngestError) as info:
        load_document(name, data)
    message = str(info.value)
    assert words.lower() in message.lower()
    assert name in message


def test_unsupported_extension_lists_supported_ones():
    with pytest.raises(IngestError, match=r"\.txt, \.md, \.pdf, \.docx, \.html"):
        load_document("a.pptx", b"data")


def test_file_over_the_size_limit_is_refused():
    with pytest.raises(IngestError, match="too large"):
        load_document("big.txt", b"a" * (MAX_FILE_BYTES + 1))


# ---- splitting -------------------------------------------------------------------
def test_split_text_respects_size_and_korean_sentence_ends():
    text = " ".join(f"{i}번 문장은 한빛랩스의 규정을 설명한다." for i in range(60))
    chunks = split_text(text, chunk_size=200, overlap=40)
    assert len(chunks) > 5
    assert all(len(c) <= 200 for c in chunks)
    assert all(c.endswith("다.") for c in chunks[:-1])  # cut at sentence ends, not inside words
    assert chunks[1].split(" ")[0] in chunks[0]  # overlap carries text over


def test_split_text_chinese_sentence_ends():
    text = "阿里巴巴的总部位于杭州。" * 40
    chunks = split_text(text, chunk_size=100, overlap=0)
    assert all(c.endswith("。") for c in chunks)
    assert "".join(chunks) == text


def test_split_text_keeps_short_text_whole():
    assert split_text("One short paragraph.", 800, 120) == ["One short paragraph."]


def test_html_keeps_inline_markup_inside_sentences_and_separates_cells():
    html = (b"<html><body><h2>Location</h2><p>Helix Labs is headquartered in <b>Busan</b>.</p>"
            b"<table><tr><th>item</th><th>cycle</th></tr><tr><td>backup</td><td>daily</td></tr></table></body></html>")
    assert load_document("a.html", html).splitlines() == [
        "Location", "Helix Labs is headquartered in Busan.", "item | cycle", "backup | daily"]


def test_docx_heading_styles_become_markdown_headings():
    """A Word heading keeps its level ("Title"/"Heading 1" → "#", "Heading 2" → "##"), so the sentences under it
    carry their section (rag.sentences.split_units) as a Markdown document's do."""
    import io

    import docx

    from rag.sentences import split_units

    document = docx.Document()
    document.add_heading("자전거 대여 규정", level=1)
    document.add_heading("1. 보증금", level=2)
    document.add_paragraph("단체는 자전거 한 대에 5만 원의 보증금을 낸다.")
    buffer = io.BytesIO()
    document.save(buffer)
    text = load_document("rules.docx", buffer.getvalue())
    assert text.splitlines()[0] == "# 자전거 대여 규정" and "## 1. 보증금" in text
    unit = split_units(text)[0][0]
    assert unit.text == "단체는 자전거 한 대에 5만 원의 보증금을 낸다." and unit.heading == "자전거 대여 규정 › 1. 보증금"
