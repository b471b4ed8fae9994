"""Vocabulary of the offline engine: the ko/en/zh glossary, same-language synonyms, code recipes and the answer
frames (the fixed words an answer is written with, per language).

Tuned on: the glossary and synonyms were written for ``sample_docs/`` (training vocabulary; a word missing here is
matched only by the embedder). Code recipes and frames are not tuned to a corpus.
"""
from __future__ import annotations


# ko / en / zh glossary of common RAG / ML / workplace terms: translation in direct mode, cross-lingual
# key-term matching in grading, and query expansion in rewrite.
GLOSSARY: tuple[tuple[str, str, str], ...] = (
    ("retrieval-augmented generation", "검색 증강 생성", "检索增强生成"),
    ("retrieval", "검색", "检索"),
    ("search", "검색", "搜索"),
    ("generation", "생성", "生成"),
    ("embedding", "임베딩", "嵌入"),
    ("embedding model", "임베딩 모델", "嵌入模型"),
    ("vector", "벡터", "向量"),
    ("vector database", "벡터 데이터베이스", "向量数据库"),
    ("knowledge base", "지식 베이스", "知识库"),
    ("knowledge graph", "지식 그래프", "知识图谱"),
    ("graph", "그래프", "图"),
    ("language model", "언어 모델", "语言模型"),
    ("large language model", "대규모 언어 모델", "大语言模型"),
    ("hallucination", "환각", "幻觉"),
    ("query rewriting", "쿼리 재작성", "查询重写"),
    ("query", "쿼리", "查询"),
    ("reranking", "재순위화", "重排序"),
    ("reranker", "리랭커", "重排序模型"),
    ("chunk", "청크", "文本块"),
    ("chunking", "청킹", "分块"),
    ("document", "문서", "文档"),
    ("question", "질문", "问题"),
    ("answer", "답변", "答案"),
    ("evaluation", "평가", "评估"),
    ("agent", "에이전트", "智能体"),
    ("router", "라우터", "路由器"),
    ("threshold", "임계값", "阈值"),
    ("context", "컨텍스트", "上下文"),
    ("prompt", "프롬프트", "提示词"),
    ("fine-tuning", "파인튜닝", "微调"),
    ("inference", "추론", "推理"),
    ("token", "토큰", "词元"),
    ("model", "모델", "模型"),
    ("index", "색인", "索引"),
    ("hybrid search", "하이브리드 검색", "混合检索"),
    ("machine learning", "머신러닝", "机器学习"),
    ("deep learning", "딥러닝", "深度学习"),
    ("artificial intelligence", "인공지능", "人工智能"),
    ("neural network", "신경망", "神经网络"),
    ("dataset", "데이터셋", "数据集"),
    ("training", "학습", "训练"),
    ("minimum wage", "최저임금", "最低工资"),
    ("salary", "연봉", "年薪"),
    ("contract", "계약", "合同"),
    ("bonus", "성과급", "奖金"),
    ("annual leave", "연차", "年假"),
    ("vacation", "휴가", "休假"),
    ("company", "회사", "公司"),
    ("headquarters", "본사", "总部"),
    ("team", "팀", "团队"),
    ("team lead", "팀장", "团队负责人"),
    ("product", "제품", "产品"),
    ("founder", "창업자", "创始人"),
    ("ceo", "대표이사", "首席执行官"),
    ("research", "연구", "研究"),
    ("research lab", "연구소", "研究所"),
    ("employee", "임직원", "员工"),
    ("employees", "직원", "员工"),
    ("customer", "고객", "客户"),
    ("security", "보안", "安全"),
    ("password", "비밀번호", "密码"),
    ("policy", "규정", "政策"),
    ("news", "뉴스", "新闻"),
    ("price", "가격", "价格"),
    ("year", "년", "年"),
    ("founded", "설립", "成立"),
    ("established", "설립", "成立"),
    ("developed", "개발", "开发"),
    ("leads", "이끈", "领导"),
)

# Same-language near-synonyms used in key-term matching only.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "일주일": ("주", "매주", "week", "weekly"), "한달": ("매월", "월", "month"), "매년": ("연간", "yearly", "annually"),
    "비용": ("가격", "요금", "price", "cost"), "가격": ("비용", "요금", "price", "cost"), "cost": ("price", "fee"),
    "price": ("cost", "fee"), "팀장": ("lead", "leads", "이끈다", "이끄"), "lead": ("팀장", "leads"),
    "leads": ("lead", "팀장", "이끈"), "도시": ("시", "city"), "city": ("도시",), "대학": ("university", "대학교"),
    "university": ("대학", "대학교"), "연구자": ("researcher", "연구진", "교수", "professor"),
}

CODE_RECIPES: tuple[tuple[tuple[str, ...], tuple[str, ...], str, str], ...] = (
    # (words that must all appear (any of each group, joined by |), title, code)
    (("average|mean|평균|平均",), (), "average of a list",
     "numbers = [3, 5, 8]\naverage = sum(numbers) / len(numbers)  # statistics.mean(numbers) also works"),
    (("reverse|뒤집|거꾸로|역순|反转|倒序",), ("string|str|문자열|字符串",), "reverse a string",
     "text = \"hello\"\nreversed_text = text[::-1]"),
    (("reverse|뒤집|거꾸로|역순|反转|倒序",), ("list|리스트|列表",), "reverse a list",
     "items = [1, 2, 3]\nitems.reverse()          # in place\nbackwards = items[::-1]  # a reversed copy"),
    (("read|읽|读取",), ("file|파일|文件",), "read a text file",
     "from pathlib import Path\ntext = Path(\"notes.txt\").read_text(encoding=\"utf-8\")\n"
     "with open(\"notes.txt\", encoding=\"utf-8\") as f:\n    for line in f:\n        print(line.rstrip())"),
    (("write|쓰기|저장|写入",), ("file|파일|文件",), "write a text file",
     "from pathlib import Path\nPath(\"out.txt\").write_text(\"hello\\n\", encoding=\"utf-8\")"),
    (("dict|딕셔너리|사전|字典",), ("iterate|loop|순회|반복|for|遍历",), "iterate over a dict",
     "scores = {\"a\": 1, \"b\": 2}\nfor key, value in scores.items():\n    print(key, value)"),
    (("sort|정렬|排序",), (), "sort a list",
     "items = [3, 1, 2]\nitems.sort()                    # in place\nranked = sorted(items, reverse=True)  # a new list"),
    (("duplicate|중복|去重|重复",), (), "remove duplicates, keeping order",
     "items = [1, 2, 2, 3, 1]\nunique = list(dict.fromkeys(items))"),
    (("json",), (), "read and write JSON",
     "import json\ndata = json.loads('{\"a\": 1}')\ntext = json.dumps(data, ensure_ascii=False, indent=2)"),
    (("length|len|길이|长度",), (), "length of a list or string",
     "len([1, 2, 3])  # 3\nlen(\"hello\")    # 5"),
)

FRAMES: dict[str, dict[str, str]] = {
    "ko": {
        "conclusion": "결론", "evidence": "근거", "sources": "출처", "uncertainty": "불확실성",
        "abstain": "문서에서 근거를 찾지 못했습니다.",
        "abstain_hint": "검색된 문서 중 질문에 답하는 문서가 없습니다. 문서를 추가하거나 질문을 바꿔 보세요.",
        "all_covered": "질문의 핵심어가 모두 근거 문장에 있습니다. 문장을 그대로 발췌했으며 추론은 더하지 않았습니다.",
        "by_meaning": "근거 문장은 질문과 다른 언어라 핵심어 대신 의미(임베딩 유사도 {score})로 찾았습니다. 문장을 그대로 "
                      "발췌했으니 출처를 확인하세요.",
        "missing": "근거 문장에 없는 핵심어: {terms}. 이 부분은 문서로 확인되지 않았습니다.",
        "ambiguous_only": "질문과 일부만 맞는(애매한) 문서에서 발췌했습니다. 그대로 믿기 전에 출처를 확인하세요.",
        "found": "문서에서 확인한 것", "not_found": "문서에서 찾지 못한 것",
        "by_meaning_found": "다른 언어 문서에서 의미로만 찾은 것(핵심어로 확인되지 않음)",
        "closest_found": "질문에 가장 가까운 문장(답으로 확인되지 않음)",
        "partial_note": "시도 한도 안에서 충분한 근거를 찾지 못해, 확인된 부분만 답합니다.",
        "no_docs": "검색된 문서가 없습니다.",
        "neighbour_only": "인용한 문장은 모두 채점된 청크 옆의 청크에서 나왔습니다(문맥으로 읽었고, 그 청크 자체는 채점하지 않았습니다).",
        "context_only": "인용한 문장은 모두 채점된 문서의 다른 청크(채점된 청크 옆이거나, 질문과 의미가 가장 가까운 청크)에서 "
                        "나왔습니다(문맥으로 읽었고, 그 청크 자체는 채점하지 않았습니다).",
    },
    "en": {
        "conclusion": "Conclusion", "evidence": "Evidence", "sources": "Sources", "uncertainty": "Uncertainty",
        "abstain": "Not found in the documents.",
        "abstain_hint": "None of the retrieved documents answers the question. Add documents or rephrase it.",
        "all_covered": "Every key term of the question appears in the evidence; sentences are quoted as written, "
                       "nothing was inferred.",
        "by_meaning": "The evidence is in another language than the question, so it was matched by meaning "
                      "(embedding similarity {score}) rather than by key terms; sentences are quoted as written.",
        "missing": "Key terms missing from the evidence: {terms}. That part is not confirmed by the documents.",
        "ambiguous_only": "Quoted from documents that only partly match the question (ambiguous); check the sources.",
        "found": "Found in the documents", "not_found": "Not found in the documents",
        "by_meaning_found": "Matched by meaning only, in documents in another language (not confirmed by key terms)",
        "closest_found": "The sentences closest to the question (not confirmed as the answer)",
        "partial_note": "The attempt budget ran out before enough evidence was found; only the confirmed part "
                        "is answered.",
        "no_docs": "No documents were retrieved.",
        "neighbour_only": "Every quoted sentence comes from a chunk next to a graded one, read as its context; that "
                          "chunk itself was not graded.",
        "context_only": "Every quoted sentence comes from another chunk of a graded document (next to a graded "
                        "chunk, or the one closest to the question in meaning), read as context; that chunk itself was "
                        "not graded.",
    },
    "zh": {
        "conclusion": "结论", "evidence": "依据", "sources": "来源", "uncertainty": "不确定性",
        "abstain": "在文档中没有找到依据。",
        "abstain_hint": "检索到的文档都不能回答这个问题。请添加文档或换一种问法。",
        "all_covered": "问题的所有关键词都出现在依据句子中；句子按原文摘录，没有推断。",
        "by_meaning": "依据与问题语言不同，按语义（嵌入相似度 {score}）而非关键词匹配；句子按原文摘录。",
        "missing": "依据中缺少的关键词：{terms}。这部分没有被文档证实。",
        "ambiguous_only": "摘自只与问题部分相关的文档（模糊），请核对来源。",
        "found": "文档中找到的", "not_found": "文档中没有找到的",
        "by_meaning_found": "仅按语义在其他语言的文档中找到的（未经关键词证实）",
        "closest_found": "与问题最接近的句子（未被确认为答案）",
        "partial_note": "在尝试次数内没有找到足够的依据，只回答已确认的部分。",
        "no_docs": "没有检索到文档。",
        "neighbour_only": "所引句子都来自已评分片段旁边的片段（作为上下文读取，该片段本身未评分）。",
        "context_only": "所引句子都来自已评分文档中的其他片段（已评分片段旁边的片段，或与问题意思最接近的片段），作为上下文读取，"
                        "该片段本身未评分。",
    },
}

# The uncertainty line when the question asks for a kind of value (answertype.py) that no quoted sentence states, and
# the names of those kinds per language (not tuned to a corpus).
NO_VALUE_FRAMES: dict[str, str] = {
    "ko": "질문이 묻는 {label}을(를) 밝힌 근거 문장이 없습니다. 이 값은 문서로 확인되지 않았습니다.",
    "en": "No quoted sentence states the {label} the question asks for; that value is not confirmed by the documents.",
    "zh": "依据中没有句子给出问题所问的{label}；这个值没有被文档证实。",
}
ASKED_LABELS: dict[str, dict[str, str]] = {
    "ko": {"year": "연도", "month": "월", "time of day": "시각", "weekday": "요일", "age": "나이", "percent": "비율", "duration": "기간",
           "money": "금액", "date or time": "날짜나 시각", "quantity": "수량",
           "frequency": "빈도", "person": "사람", "place": "장소", "weight": "무게", "length": "길이", "temperature": "온도"},
    "en": {"year": "year", "month": "month", "time of day": "time of day", "weekday": "day of the week", "age": "age",
           "percent": "percentage", "duration": "duration", "money": "amount of money", "date or time": "date or time",
           "quantity": "number", "frequency": "frequency", "person": "person", "place": "place", "weight": "weight",
           "length": "length", "temperature": "temperature"},
    "zh": {"year": "年份", "month": "月份", "time of day": "时间", "weekday": "星期", "age": "年龄", "percent": "比例", "duration": "时长",
           "money": "金额", "date or time": "日期或时间", "quantity": "数量",
           "frequency": "频率", "person": "人员", "place": "地点", "weight": "重量", "length": "长度", "temperature": "温度"},
}
