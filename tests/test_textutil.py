"""Tokens, key terms, sentences and query normalisation for Korean, English and Chinese."""
from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from rag.textutil import key_terms, normalize_query, split_sentences, strip_korean, tokenize

_HAN = re.compile(r"[\u3400-\u9fff]")


def test_korean_particles_and_endings_are_stripped():
    tokens = tokenize("카카오는 판교에 본사를 두고 있다.")
    assert {"카카오", "판교", "본사"} <= set(tokens)
    assert not {"카카오는", "판교에", "본사를"} & set(tokens)
    assert strip_korean("개발했다") == "개발"
    assert strip_korean("설립되었나요") == "설립"
    assert strip_korean("회사에서는") == "회사"
    assert strip_korean("아이") == "아이"  # one syllable left would be too little: "이" is kept


def test_spoken_korean_endings_are_stripped():
    # spoken particles and endings of typed questions: 엔 (= 에는), 이랑 / 랑 (= 와), 인데, 이었죠, 였나요
    assert strip_korean("병원엔") == "병원"
    assert strip_korean("대학이랑") == "대학"
    assert strip_korean("세온대랑") == "세온대"
    assert strip_korean("소속인데") == "소속"
    assert strip_korean("도스였나요") == "도스"
    assert strip_korean("담당이었죠") == "담당"
    # a two-syllable word that only ends like a particle keeps its last syllable
    assert strip_korean("사랑") == "사랑" and strip_korean("파랑") == "파랑"
    assert key_terms("중국 대학이랑 맺은 협약, 언제까지 유효해?")[:2] == ["중국", "대학"]


def test_korean_compounds_meet_their_parts_through_bigrams():
    assert "분석" in tokenize("형태소분석기를 사용한다")
    assert "분석" in tokenize("분석 결과")


def test_latin_words_numbers_and_model_names():
    tokens = tokenize("The bge-large-zh-v1.5 model costs 9,620 won.")
    assert "bge-large-zh-v1.5" in tokens
    assert {"bge", "large", "zh", "v1.5"} <= set(tokens)
    assert "9620" in tokens
    assert "the" not in tokens
    assert tokenize("Helix LABS") == ["helix", "labs"]


def test_chinese_becomes_bigrams_without_stop_characters():
    tokens = tokenize("阿里巴巴的总部在哪里？")
    assert {"阿里", "巴巴", "总部"} <= set(tokens)
    assert "巴的" not in tokens and "哪里" not in tokens


def test_key_terms_drop_question_and_stop_words():
    assert key_terms("2023년 최저임금은 무엇인가요?") == ["2023", "최저임금"]
    assert key_terms("What is the minimum wage in 2023?") == ["minimum", "wage", "2023"]
    assert key_terms("Nuri-LM을 개발한 조직은 어디에 있나요?")[:2] == ["nuri-lm", "개발"]
    assert "什么" not in "".join(key_terms("通义千问是什么？"))
    assert {"通义", "千问"} <= set(key_terms("通义千问是什么？"))


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcXYZ019-., 는을이가의에서다요。？的是总部카카오판교")), max_size=60))
def test_key_terms_are_found_in_the_same_text(text):
    # a question's key term is found in a document that contains it: a token of it, or (a Chinese word) a phrase
    from rag.engines.offline.coverage import coverage_of

    terms = key_terms(text)
    assert set(t for t in terms if not _HAN.search(t)) <= set(tokenize(text))
    assert all(coverage_of([t], text).credit[t] == 1.0 for t in terms if _HAN.search(t))


def test_chinese_key_terms_are_words_not_bigrams_across_word_edges():
    # jieba: no bigram that straddles two words ("名去", "学交", "换要") — no sentence contains those
    terms = key_terms("报名去世温大学交换要交什么材料？")
    assert {"报名", "大学", "交换", "材料"} <= set(terms)
    assert not {"名去", "学交", "换要"} & set(terms)
    # a dictionary word of four characters gives its parts (a document may write either alone); a word of three
    # stays whole (a key term is looked up as a phrase)
    assert {"生日", "蛋糕"} <= set(key_terms("生日蛋糕要提前几天订？"))
    assert "二维码" in key_terms("闸机无法识别二维码的原因是什么？")


def test_split_sentences_korean_chinese_and_wrapped_lines():
    text = ("# 제목\nRRF는 여러 검색기의 순위를 합친다. RRF는 Gordon Cormack 연구진이 2009년에\n제안했다.\n"
            "- 첫째 항목\n- 둘째 항목\n  이어지는 줄\nv1.5 is out! 它很好。我们用它？好")
    assert split_sentences(text) == [
        "# 제목",
        "RRF는 여러 검색기의 순위를 합친다.",
        "RRF는 Gordon Cormack 연구진이 2009년에 제안했다.",
        "- 첫째 항목",
        "- 둘째 항목 이어지는 줄",
        "v1.5 is out!",
        "它很好。",
        "我们用它？",
        "好",
    ]


def test_normalize_query_ignores_case_punctuation_and_particles():
    assert normalize_query("카카오는 어디에 있나요?") == normalize_query("카카오  어디 있나요")
    assert normalize_query("Where is Helix Labs?") == normalize_query("where is helix labs")
    assert normalize_query("Where is Helix Labs?") != normalize_query("Where is Orion-3?")


def test_abbreviations_do_not_end_a_sentence():
    text = "The Research Computing Group is led by Dr. Sungho Yoon. Ask Prof. Moon, e.g. by mail. Plan B. Then go."
    assert split_sentences(text) == ["The Research Computing Group is led by Dr. Sungho Yoon.",
                                     "Ask Prof. Moon, e.g. by mail.", "Plan B.", "Then go."]
