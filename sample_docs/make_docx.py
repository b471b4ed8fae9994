"""Regenerate security_policy.docx (a sample .docx for the loader) from the text below.

Run from anywhere: python sample_docs/make_docx.py
The output is committed, so this is only needed when the text changes.
"""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

from docx import Document

TITLE = "한빛랩스 정보보안 규정"

SECTIONS: list[tuple[str, list[str]]] = [
    ("1. 목적", [
        "이 규정은 한빛랩스 임직원이 회사와 고객의 정보를 안전하게 다루기 위해 지켜야 할 기준을 정한다.",
        "정보보안 규정의 관리 책임은 Security Team에 있다.",
    ]),
    ("2. 계정과 비밀번호", [
        "사내 계정 비밀번호는 90일마다 바꿔야 한다. 새 비밀번호는 최근에 쓴 3개의 비밀번호와 달라야 한다.",
        "비밀번호는 12자 이상이어야 하며, 영문 대문자, 소문자, 숫자, 특수문자 중 세 종류 이상을 섞는다.",
        "모든 사내 시스템에는 2단계 인증(OTP)을 켜야 한다.",
        "로그인에 5번 연속 실패하면 계정이 30분 동안 잠긴다.",
    ]),
    ("3. 고객 데이터", [
        "고객 문서는 고객사가 허락한 환경에서만 열람한다. 고객 문서를 개인 노트북이나 개인 클라우드에 내려받으면 안 된다.",
        "고객 데이터는 모델 학습에 쓰지 않는다.",
    ]),
    ("4. 외부 AI 서비스", [
        "회사 밖의 생성형 AI 서비스에 사내 문서나 고객 문서를 붙여 넣으면 안 된다. 업무에는 사내 AI 플랫폼 Orbit을 쓴다.",
    ]),
    ("5. 보안 사고 신고", [
        "노트북 분실, 계정 도용 의심, 피싱 메일 클릭 같은 사고는 알게 된 즉시, 늦어도 1시간 안에 Security Team에 신고한다.",
        "신고한 직원에게는 불이익을 주지 않는다.",
    ]),
    ("6. 보안 교육", [
        "모든 임직원은 입사 첫날과 매년 1회 보안 교육을 받는다.",
    ]),
]


def build(path: Path) -> Path:
    doc = Document()
    doc.core_properties.title = TITLE
    doc.core_properties.author = "Hanbit Labs Security Team"
    # fixed dates so that regenerating the same text gives the same metadata
    doc.core_properties.created = doc.core_properties.modified = datetime(2024, 1, 2, 9, 0, 0)
    doc.add_heading(TITLE, level=1)
    for heading, paragraphs in SECTIONS:
        doc.add_heading(heading, level=2)
        for text in paragraphs:
            doc.add_paragraph(text)
    doc.save(path)
    return path


if __name__ == "__main__":
    out = build(Path(__file__).resolve().parent / "security_policy.docx")
    print(f"wrote {out} ({out.stat().st_size} bytes)")
