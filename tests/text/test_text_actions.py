"""Summarize and translate (Oracle's SUMMARIZE and TRANSLATE, and generate's
summarize and translate actions), end to end with the fake LLM: chunk
boundaries and exact call counts for both summary methods on long documents,
the limits and style the model is told, per-row use over a table, languages by
code and name, every error case before any request, content from a URL, both
actions inside named conversations, and the calls in user_cloud_ai_calls."""

from __future__ import annotations

import json
import math
import re

import pytest
from fake_llm import Answer, Raw, last_user_text
from helpers import case, generate, hint_of, make_profile, raises

# A small window and answer, so that a document of a few thousand characters
# needs several chunks.  The formulas of docs/reference/text-actions.md, written out:
WINDOW, OUT, RESERVE = 2000, 200, 400
SUMMARY_BUDGET = WINDOW - 2 * OUT - RESERVE              # 1200 tokens of content per call
SUMMARY_T = math.floor(0.8 * 3 * SUMMARY_BUDGET)        # 2880 characters per chunk (target)
SUMMARY_MAX = math.floor(3 * SUMMARY_BUDGET)            # 3600: no chunk is longer
GROUP = (WINDOW - OUT - RESERVE) // OUT                 # 7 summaries per combine call
TRANSLATE_BUDGET = min(WINDOW - OUT - RESERVE, OUT // 2)  # 100 tokens
TRANSLATE_T = math.floor(0.8 * 3 * TRANSLATE_BUDGET)    # 240 characters


@pytest.fixture
def small(alice, llm):
    """alice with profile P: context_window 2000, max_tokens 200."""
    make_profile(alice, llm, context_window=WINDOW, max_tokens=OUT)
    return alice


def document(paragraphs: int, seed: int = 0) -> str:
    """Paragraphs of 3 to 9 sentences, each naming its paragraph and sentence."""
    out = []
    for p in range(1, paragraphs + 1):
        n = 3 + (p * 7 + seed) % 7
        out.append(" ".join(f"Paragraph {p} sentence {s} tells a small fact about topic {p}."
                            for s in range(1, n + 1)))
    return "\n\n".join(out)


def system_of(body) -> str:
    m = body.get("messages") or []
    return m[0]["content"] if m and m[0]["role"] == "system" else ""


def sent_text(user: str) -> str:
    """The content between <text> and </text> in a user message."""
    m = re.search(r"<text>\n(.*)\n</text>\Z", user, re.S)
    assert m, user
    return m.group(1)


def summarize(conn, content=None, profile="P", **kw):
    args = {"content": content, "profile_name": profile, **kw}
    names = ", ".join(f"{k} => %({k})s" for k in args)
    return conn.execute(f"select dbms_cloud_ai.summarize({names})", args).fetchone()[0]


def translate(conn, text, target=None, source=None, profile="P"):
    return conn.execute("select dbms_cloud_ai.translate(%s, %s, %s, %s)",
                        (profile, text, source, target)).fetchone()[0]


def summary_responder(wire, body):
    """'summary of part i' for a chunk, 'combined(...)' for a combine call,
    'refined k' for a refinement; a single chunk gets 'the summary'."""
    system, user = system_of(body), last_user_text(wire, body)
    m = re.search(r"part (\d+) of (\d+)", system)
    if "Combine them" in system or "Merge them" in system:
        parts = re.findall(r"<summary part=\"\d+\">\n(.*?)\n</summary>", user, re.S)
        return Answer(("final" if "Combine them" in system else "merged") + "(" + "+".join(parts) + ")")
    if "Rewrite the summary" in system:
        return Answer(f"refined {m.group(1)}")
    if m:
        return Answer(f"summary of part {m.group(1)}")
    return Answer("the summary")


def calls(conn):
    return conn.execute("select action, purpose, profile_name, status, conversation_id "
                        "from dbms_cloud_ai.user_cloud_ai_calls order by created").fetchall()


# --- summarize: one chunk -----------------------------------------------------------------

def test_short_content_is_one_call_with_the_defaults(alice, llm):
    make_profile(alice, llm)
    llm.responder = summary_responder
    text = "PostgreSQL is an object-relational database. It is open source."
    assert summarize(alice, text) == "the summary"
    assert len(llm.requests) == 1
    body = llm.requests[0].json
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert sent_text(body["messages"][1]["content"]) == text
    system = system_of(body)
    assert "prose" in system                         # summary_style paragraph (default)
    assert "Mix the text's own wording" in system    # extractiveness_level medium (default)
    assert "Use at" not in system                    # no word limits unless asked
    assert body["max_tokens"] == 1024
    assert calls(alice) == [("SUMMARIZE", "summary-chunk", "P", "ok", None)]


def test_word_limits_style_extractiveness_and_user_prompt_reach_the_model(alice, llm):
    make_profile(alice, llm)
    params = {"min_words": 20, "max_words": 60, "summary_style": "LIST",
              "extractiveness_level": "high"}
    summarize(alice, "Some text to summarize.", user_prompt="Focus on risks.",
              params=json.dumps(params))
    system = system_of(llm.requests[-1].json)
    assert "Use between 20 and 60 words." in system
    assert "list of key points" in system
    assert "Stay close to the text's own wording" in system
    assert "Focus on risks." in system
    # The Python SDK's spelling: prompt and parameters.
    summarize(alice, "Some text to summarize.", prompt="Focus on costs.",
              parameters=json.dumps({"max_words": 30, "extractiveness_level": "low"}))
    system = system_of(llm.requests[-1].json)
    assert "Use at most 30 words." in system and "Focus on costs." in system
    assert "Rephrase freely" in system and "prose" in system
    summarize(alice, "Some text to summarize.", params='{"min_words": "15"}')
    assert "Use at least 15 words." in system_of(llm.requests[-1].json)
    assert len(llm.requests) == 3


def long_then_short(wire, body):
    """A first summary of 80 words whatever max_words says; asked to shorten, 20 words."""
    if "Rewrite the summary between <summary> and </summary> in at most" in system_of(body):
        return Answer(" ".join(["short"] * 20))
    return Answer(" ".join(["long"] * 80))


def test_a_summary_far_over_max_words_is_shortened_once(alice, llm):
    make_profile(alice, llm)
    llm.responder = long_then_short
    got = summarize(alice, "Some text to summarize.", user_prompt="Focus on risks.",
                    params='{"max_words": 30, "summary_style": "list"}')
    assert got == " ".join(["short"] * 20)
    assert len(llm.requests) == 2
    shorten = llm.requests[1].json
    system = system_of(shorten)
    assert "Rewrite the summary between <summary> and </summary> in at most 30 words." in system
    assert "list of key points" in system and "Focus on risks." in system
    user = shorten["messages"][1]["content"]
    assert user == "<summary>\n" + " ".join(["long"] * 80) + "\n</summary>\n"
    assert [c[1] for c in calls(alice)] == ["summary-chunk", "summary-shorten"]
    # The generate action shortens the same way.
    got = generate(alice, "Some text to summarize.", "P", "summarize",
                   params='{"max_words": 30}')
    assert got == " ".join(["short"] * 20) and len(llm.requests) == 4


def test_a_summary_near_max_words_or_without_it_is_kept(alice, llm):
    make_profile(alice, llm)
    llm.responder = lambda wire, body: Answer(" ".join(["word"] * 80))
    # 80 words is within a quarter over 64, and nothing bounds a summary without max_words.
    assert len(summarize(alice, "Some text.", params='{"max_words": 64}').split()) == 80
    assert len(summarize(alice, "Some text.", params='{"min_words": 10}').split()) == 80
    assert len(summarize(alice, "Some text.").split()) == 80
    assert len(llm.requests) == 3


def test_a_shortened_summary_that_is_not_shorter_is_not_taken(alice, llm):
    make_profile(alice, llm)
    llm.responder = lambda wire, body: Answer(" ".join(["word"] * 80))
    assert len(summarize(alice, "Some text.", params='{"max_words": 30}').split()) == 80
    assert len(llm.requests) == 2


def test_a_summary_still_too_long_is_shortened_twice_at_most(alice, llm):
    make_profile(alice, llm)

    def shrinking(wire, body):
        m = re.search(r"<summary>\n(.*)\n</summary>", last_user_text(wire, body), re.S)
        return Answer(" ".join(["w"] * (len(m.group(1).split()) - 20 if m else 100)))
    llm.responder = shrinking
    assert len(summarize(alice, "Some text.", params='{"max_words": 30}').split()) == 60
    assert [c[1] for c in calls(alice)] == ["summary-chunk"] + ["summary-shorten"] * 2
    assert llm.requests[2].json["messages"][1]["content"] == "<summary>\n" + " ".join(["w"] * 80) + "\n</summary>\n"


def test_shortening_stays_within_max_text_calls(alice, llm):
    make_profile(alice, llm)
    llm.responder = long_then_short
    alice.execute("set dbms_cloud_ai.max_text_calls = 1")
    assert len(summarize(alice, "Some text.", params='{"max_words": 30}').split()) == 80
    assert len(llm.requests) == 1
    alice.execute("set dbms_cloud_ai.max_text_calls = 2")
    assert len(summarize(alice, "Some text.", params='{"max_words": 30}').split()) == 20
    assert len(llm.requests) == 3


def test_positional_notation_is_oracles_order(alice, llm):
    """content, location_uri, credential_name, profile_name, user_prompt, params."""
    make_profile(alice, llm)
    alice.execute("select dbms_cloud_ai.summarize('Text.', null, null, 'P', 'Be brief.', "
                  "'{\"max_words\": 10}')")
    system = system_of(llm.requests[-1].json)
    assert "Be brief." in system and "Use at most 10 words." in system


# --- summarize: long documents --------------------------------------------------------------

def chunk_requests(llm):
    return [r for r in llm.requests if "Combine them" not in system_of(r.json)
            and "Merge them" not in system_of(r.json)]


def assert_whole_paragraph_chunks(chunks, doc):
    """The chunks are the document, in order, cut only at blank lines, none too long."""
    assert "\n\n".join(chunks) == doc
    paragraphs = set(doc.split("\n\n"))
    for c in chunks:
        assert set(c.split("\n\n")) <= paragraphs
        assert len(c) <= SUMMARY_MAX


def test_map_reduce_chunks_at_paragraphs_then_combines(small, llm):
    doc = document(60)
    n = math.ceil(len(doc) / SUMMARY_T)
    assert 4 <= n <= GROUP
    llm.responder = summary_responder
    result = summarize(small, doc)
    # n chunk calls in order, then one combine call with the n summaries in order.
    assert len(llm.requests) == n + 1
    chunks = []
    for i, r in enumerate(llm.requests[:n], 1):
        assert f"part {i} of {n}" in system_of(r.json)
        chunks.append(sent_text(last_user_text("openai", r.json)))
    assert_whole_paragraph_chunks(chunks, doc)
    assert "Combine them" in system_of(llm.requests[-1].json)
    assert result == "final(" + "+".join(f"summary of part {i}" for i in range(1, n + 1)) + ")"
    purposes = [c[1] for c in calls(small)]
    assert purposes == ["summary-chunk"] * n + ["summary-combine"]


def test_word_limits_and_style_apply_to_the_combined_summary_only(small, llm):
    llm.responder = summary_responder
    summarize(small, document(40), params=json.dumps({"max_words": 80, "summary_style": "list"}))
    chunk_calls = chunk_requests(llm)
    assert len(chunk_calls) >= 2
    for r in chunk_calls:
        assert "80 words" not in system_of(r.json) and "key points" not in system_of(r.json)
    final = system_of(llm.requests[-1].json)
    assert "Use at most 80 words." in final and "list of key points" in final


def test_map_reduce_combines_hierarchically_within_the_window(small, llm):
    doc = document(300, seed=3)
    n = math.ceil(len(doc) / SUMMARY_T)
    level1 = math.ceil(n / GROUP)
    assert n > GROUP and level1 <= GROUP
    llm.responder = summary_responder
    result = summarize(small, doc)
    assert len(llm.requests) == n + level1 + 1
    merges = [r for r in llm.requests if "Merge them" in system_of(r.json)]
    assert len(merges) == level1
    sizes = [len(re.findall("<summary part", last_user_text("openai", r.json))) for r in merges]
    assert sum(sizes) == n and max(sizes) == GROUP
    final = last_user_text("openai", llm.requests[-1].json)
    assert len(re.findall("<summary part", final)) == level1
    assert result.startswith("final(merged(summary of part 1+")
    assert_whole_paragraph_chunks(
        [sent_text(last_user_text("openai", r.json)) for r in llm.requests[:n]], doc)


def test_iterative_refinement_carries_the_summary_through_the_chunks(small, llm):
    doc = document(60, seed=1)
    n = math.ceil(len(doc) / SUMMARY_T)
    llm.responder = summary_responder
    result = summarize(small, doc, params='{"chunk_processing_method": "iterative_refinement", '
                                          '"max_words": 50}')
    assert len(llm.requests) == n
    assert result == f"refined {n}"
    chunks = [sent_text(last_user_text("openai", llm.requests[0].json))]
    for k, r in enumerate(llm.requests[1:], 2):
        user = last_user_text("openai", r.json)
        previous = "summary of part 1" if k == 2 else f"refined {k - 1}"
        assert user.startswith(f"<summary>\n{previous}\n</summary>\n<text>\n")
        assert f"part {k} of {n}" in system_of(r.json)
        chunks.append(sent_text(user.split("</summary>\n", 1)[1]))
    assert_whole_paragraph_chunks(chunks, doc)
    for r in llm.requests:
        assert "Use at most 50 words." in system_of(r.json)
    assert [c[1] for c in calls(small)] == ["summary-chunk"] * n


def test_without_paragraphs_cuts_fall_on_sentences_then_spaces(small, llm):
    llm.responder = summary_responder
    sentences = " ".join(f"Sentence {i} is short." for i in range(1, 700))
    summarize(small, sentences, params='{"chunk_processing_method": "iterative_refinement"}')
    n = math.ceil(len(sentences) / SUMMARY_T)
    assert len(llm.requests) == n
    for r in llm.requests[:-1]:
        text = sent_text(last_user_text("openai", r.json).split("</summary>\n")[-1])
        assert text.endswith("is short.") and len(text) <= SUMMARY_MAX
    llm.requests.clear()
    words = " ".join(f"word{i}" for i in range(1, 1500))
    summarize(small, words, params='{"chunk_processing_method": "iterative_refinement"}')
    texts = [sent_text(last_user_text("openai", r.json).split("</summary>\n")[-1])
             for r in llm.requests]
    assert len(texts) == math.ceil(len(words) / SUMMARY_T)
    assert " ".join(texts) == words                      # cut at spaces, no word split


def test_model_calls_are_capped_before_any_request(small, llm):
    doc = document(60)
    n = math.ceil(len(doc) / SUMMARY_T)
    small.execute(f"set dbms_cloud_ai.max_text_calls = {n}")    # map_reduce needs n + 1
    with raises("54000") as e:
        summarize(small, doc)
    assert "max_text_calls" in hint_of(e) and "summarize" in hint_of(e)
    assert llm.requests == []
    # iterative_refinement needs n calls: allowed.
    summarize(small, doc, params='{"chunk_processing_method": "iterative_refinement"}')
    assert len(llm.requests) == n
    small.execute("set dbms_cloud_ai.max_text_calls = 'many'")
    with raises("22023"):
        summarize(small, "short")


def test_a_window_too_small_for_max_tokens_is_refused(alice, llm):
    make_profile(alice, llm, context_window=2048, max_tokens=800)
    with raises("22023") as e:
        summarize(alice, "text")
    assert "context_window" in hint_of(e) and "summarize" in hint_of(e)
    with raises("22023"):
        generate(alice, "text", action="summarize")
    assert llm.requests == []


def test_the_window_comes_from_the_model_name(alice, llm):
    """gpt-4o-mini (128k): 300 kB is one call; an unknown model (8k): several."""
    make_profile(alice, llm)            # openai, default model gpt-4o-mini
    doc = document(800)
    assert 50_000 < len(doc) < 300_000
    summarize(alice, doc)
    assert len(llm.requests) == 1
    llm.requests.clear()
    alice.execute("select dbms_cloud_ai.set_attribute('P', 'model', 'my-own-model')")
    summarize(alice, doc, params='{"chunk_processing_method": "iterative_refinement"}')
    default_t = math.floor(0.8 * 3 * (8192 - 2 * 1024 - 400))
    assert len(llm.requests) == math.ceil(len(doc) / default_t)


# --- summarize: errors, all before any request ------------------------------------------

BAD_PARAMS = [
    ({"max_word": 10}, "22023"),
    ({"summary_style": "bullets"}, "22023"),
    ({"chunk_processing_method": "stuff"}, "22023"),
    ({"extractiveness_level": "extreme"}, "22023"),
    ({"min_words": 0}, "22023"),
    ({"max_words": -5}, "22023"),
    ({"max_words": "many"}, "22023"),
    ({"max_words": 12.5}, "22023"),
    ({"max_words": True}, "22023"),
    ({"min_words": 100, "max_words": 50}, "22023"),
    ({"summary_style": 1}, "22023"),
]


@pytest.mark.parametrize("params,state", BAD_PARAMS)
def test_bad_params_are_refused_before_any_request(alice, llm, params, state):
    make_profile(alice, llm)
    with raises(state) as e:
        summarize(alice, "some text", params=json.dumps(params))
    assert "summarize" in hint_of(e)
    with raises(state):
        generate(alice, "some text", action="summarize", params=json.dumps(params))
    assert llm.requests == []


def test_argument_errors_are_refused_before_any_request(alice, llm):
    make_profile(alice, llm)
    for what, kw, state in [
            ("params not JSON", {"params": "{max_words: 5}"}, "22P02"),
            ("params not an object", {"params": "[1]"}, "22023"),
            ("both prompt spellings", {"user_prompt": "a", "prompt": "b"}, "22023"),
            ("both params spellings", {"params": "{}", "parameters": "{}"}, "22023"),
            ("content and location_uri", {"location_uri": "https://example.com/x"}, "22023"),
            ("credential without location", {"credential_name": "CRED"}, "22023")]:
        with case(what):
            with raises(state) as e:
                summarize(alice, "text", **kw)
            assert "summarize" in hint_of(e)
    with raises("42704"):
        summarize(alice, "text", profile="NO_SUCH")
    alice.execute("select dbms_cloud_ai.clear_profile()")
    with raises("55000"):
        alice.execute("select dbms_cloud_ai.summarize('text')")
    assert llm.requests == []


def test_summary_params_are_for_the_summarize_action_only(alice, llm):
    make_profile(alice, llm)
    with raises("22023") as e:
        generate(alice, "q", action="chat", params='{"max_words": 10}')
    assert "conversation_id" in e["error"].diag.message_detail
    assert llm.requests == []


# --- summarize through generate, per row ---------------------------------------------------

def test_generate_summarize_action(alice, llm):
    make_profile(alice, llm)
    llm.responder = summary_responder
    out = generate(alice, "A long text about databases.", action="summarize",
                   params=json.dumps({"max_words": 25, "summary_style": "list"}))
    assert out == "the summary"
    system = system_of(llm.requests[-1].json)
    assert "Use at most 25 words." in system and "key points" in system
    assert calls(alice)[-1][:2] == ("SUMMARIZE", "summary-chunk")
    # Oracle's statement form.
    alice.execute("select dbms_cloud_ai.set_profile('P')")
    alice.execute("select dbms_cloud_ai.select_ai('summarize PostgreSQL has MVCC.')")
    assert sent_text(last_user_text("openai", llm.requests[-1].json)) == "PostgreSQL has MVCC."


def test_summarize_per_row_over_a_table(alice, llm):
    make_profile(alice, llm)
    alice.execute("create table tickets (id int primary key, body text)")
    alice.execute("insert into tickets values (1, 'Printer on floor 2 is jammed again.'), "
                  "(2, 'VPN drops every hour since Monday.'), (3, null), "
                  "(4, 'Need access to the sales dashboard.')")
    llm.responder = lambda wire, body: Answer(
        "SUM: " + sent_text(last_user_text(wire, body)).split()[0])
    rows = alice.execute("select id, dbms_cloud_ai.summarize(body, profile_name => 'P', "
                         "params => '{\"max_words\": 5}') from tickets order by id").fetchall()
    assert rows == [(1, "SUM: Printer"), (2, "SUM: VPN"), (3, None), (4, "SUM: Need")]
    assert len(llm.requests) == 3                   # the NULL row made no call
    assert [c[1] for c in calls(alice)] == ["summary-chunk"] * 3


# --- summarize: location_uri -------------------------------------------------------------

def test_location_uri_is_fetched_then_summarized(alice, llm):
    make_profile(alice, llm)
    doc = "Quarterly report.\n\nRevenue grew by 12 percent."
    llm.script(Raw(200, doc, headers={"content-type": "text/plain; charset=utf-8"}))
    llm.responder = summary_responder
    out = summarize(alice, None, location_uri=f"{llm.url}/docs/report.txt")
    assert out == "the summary"
    assert [r.method for r in llm.requests] == ["GET", "POST"]
    assert llm.requests[0].path == "/docs/report.txt"
    assert "authorization" not in llm.requests[0].headers
    assert sent_text(last_user_text("openai", llm.requests[1].json)) == doc


def test_location_uri_html_is_read_as_text(alice, llm):
    make_profile(alice, llm)
    page = ("<html><head><title>x</title><script>var secret = 1;</script></head><body>"
            "<h1>Title</h1><p>First &amp; only paragraph.</p></body></html>")
    llm.script(Raw(200, page, headers={"content-type": "text/html"}))
    summarize(alice, None, location_uri=f"{llm.url}/page.html")
    assert sent_text(last_user_text("openai", llm.requests[1].json)) == \
        "Title\n\nFirst & only paragraph."


def test_location_uri_errors(alice, llm):
    make_profile(alice, llm)
    # Not http(s), credentials in the URL, a credential over plain http: before any request.
    for uri in ("ftp://127.0.0.1/x.txt", "oci://bucket/x", "/etc/passwd", "http://u:p@127.0.0.1/x"):
        with case(uri):
            with raises("22023"):
                summarize(alice, None, location_uri=uri)
    with raises("22023"):
        summarize(alice, None, location_uri=f"{llm.url}/x", credential_name="CRED")
    # A host the ACL does not allow (the fixture allows 127.0.0.1 only).
    with raises("42501") as e:
        summarize(alice, None, location_uri=f"http://localhost:{llm.port}/x")
    assert "append_host_ace" in hint_of(e)
    assert llm.requests == []
    # A binary document and a missing one: fetched, but no model call.
    llm.script(Raw(200, b"%PDF-1.7", headers={"content-type": "application/pdf"}))
    with raises("0A000"):
        summarize(alice, None, location_uri=f"{llm.url}/x.pdf")
    llm.script(Raw(404, "not found", headers={"content-type": "text/plain"}))
    with raises("LL004"):
        summarize(alice, None, location_uri=f"{llm.url}/missing.txt")
    llm.script(Raw(302, "", headers={"location": "http://127.0.0.1/elsewhere"}))
    with raises("LL004"):
        summarize(alice, None, location_uri=f"{llm.url}/moved.txt")
    assert [r.method for r in llm.requests] == ["GET", "GET", "GET"]


def test_a_credential_is_never_sent_over_plain_http(alice, llm):
    make_profile(alice, llm)
    alice.execute("select dbms_cloud.create_credential('DOCS', 'reader', 'doc-secret-123')")
    with raises("22023") as e:
        summarize(alice, None, location_uri=f"{llm.url}/x", credential_name="DOCS")
    assert "https" in str(e["error"])
    assert llm.requests == []


# --- translate ----------------------------------------------------------------------------

@pytest.mark.parametrize("target", ["fr", "FR", "French", "french", "français", "FRANCAIS",
                                    "fra", "fre"])
def test_target_language_by_code_or_name(alice, llm, target):
    make_profile(alice, llm)
    llm.script(Answer("Bonjour le monde"))
    assert translate(alice, "Hello world", target) == "Bonjour le monde"
    system = system_of(llm.requests[0].json)
    assert "into French" in system and "detect its language" in system
    assert sent_text(last_user_text("openai", llm.requests[0].json)) == "Hello world"
    assert calls(alice) == [("TRANSLATE", "translation", "P", "ok", None)]


@pytest.mark.parametrize("source,target,said", [
    ("en", "de", "from English into German"),
    ("English", "Deutsch", "from English into German"),
    ("es", "pt-BR", "from Spanish into Portuguese (pt-BR)"),
    ("ja", "Traditional Chinese", "from Japanese into Chinese (zh-Hant)"),
    ("auto", "ko", "(detect its language) into Korean"),
])
def test_source_and_target_languages(alice, llm, source, target, said):
    make_profile(alice, llm)
    translate(alice, "text", target, source)
    assert said in system_of(llm.requests[0].json)


@pytest.mark.parametrize("source,target", [
    ("en", "not-a-real-language"), ("en", "xx"), ("klingon", "fr"), ("en", ""), ("en", None)])
def test_invalid_language_is_refused_before_any_request(alice, llm, source, target):
    make_profile(alice, llm)
    with raises("22023") as e:
        translate(alice, "Hello", target, source)
    if target is not None and target != "":
        assert "Invalid language or language code" in str(e["error"])
    assert "translate" in hint_of(e)
    assert llm.requests == []


def test_profile_languages_and_call_overrides(alice, llm):
    make_profile(alice, llm, source_language="English", target_language="it")
    translate(alice, "Good morning")
    assert "from English into Italian" in system_of(llm.requests[-1].json)
    translate(alice, "Good morning", target="nl")           # the argument wins
    assert "from English into Dutch" in system_of(llm.requests[-1].json)
    # generate: the profile's languages, per-call attributes override them.
    generate(alice, "Good morning", action="translate")
    assert "from English into Italian" in system_of(llm.requests[-1].json)
    generate(alice, "Good morning", action="translate",
             attributes='{"target_language": "Spanish", "source_language": "en"}')
    assert "from English into Spanish" in system_of(llm.requests[-1].json)
    assert [c[:2] for c in calls(alice)] == [("TRANSLATE", "translation")] * 4
    # Oracle's SDK test: an invalid target language through generate.
    with raises("22023") as e:
        generate(alice, "Thank you", action="translate",
                 attributes='{"target_language": "not-a-real-language"}')
    assert "Invalid language or language code" in str(e["error"])
    assert "set_attribute" in hint_of(e)
    assert len(llm.requests) == 4


def test_generate_translate_needs_a_target_language(alice, llm):
    make_profile(alice, llm)
    with raises("22023") as e:
        generate(alice, "Hello", action="translate")
    assert "target_language" in str(e["error"])
    assert llm.requests == []


def test_long_text_is_translated_in_chunks_and_reassembled_in_order(small, llm):
    text = document(12)
    n = math.ceil(len(text) / TRANSLATE_T)
    llm.responder = lambda wire, body: Answer(
        "<" + sent_text(last_user_text(wire, body)).upper() + ">")
    out = translate(small, "\n" + text + "\n", "de")
    assert len(llm.requests) == n
    pieces = [sent_text(last_user_text("openai", r.json)) for r in llm.requests]
    for i, (r, piece) in enumerate(zip(llm.requests, pieces), 1):
        assert f"part {i} of {n}" in system_of(r.json)
        assert len(piece) <= TRANSLATE_T / 0.8
    # Cut at whitespace (paragraphs, else sentences, else spaces), never inside a
    # word; joined again with the original separators.
    expected, rest = [], text
    for i, piece in enumerate(pieces, 1):
        assert rest.startswith(piece)
        rest = rest[len(piece):]
        sep = rest[:len(rest) - len(rest.lstrip())]
        assert sep or i == n
        rest = rest[len(sep):]
        expected.append("<" + piece.upper() + ">" + sep)
    assert rest == ""
    assert out == "\n" + "".join(expected) + "\n"
    assert sum(p.endswith(".") for p in pieces) >= n // 2   # mostly at sentence ends
    assert [c[1] for c in calls(small)] == ["translation"] * n


def test_translate_cap_and_truncation(small, llm):
    text = document(12)
    n = math.ceil(len(text) / TRANSLATE_T)
    small.execute(f"set dbms_cloud_ai.max_text_calls = {n - 1}")
    with raises("54000"):
        translate(small, text, "de")
    assert llm.requests == []
    small.execute("reset dbms_cloud_ai.max_text_calls")
    cut = {"id": "x", "object": "chat.completion", "model": "m",
           "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hallo"},
                        "finish_reason": "length"}]}
    llm.script(Raw(200, cut))
    with raises("54000") as e:
        translate(small, "Hello there, how are you?", "de")
    assert "max_tokens" in hint_of(e)


def test_translate_per_row_over_a_table(alice, llm):
    make_profile(alice, llm)
    alice.execute("create table reviews (id int, body text)")
    alice.execute("insert into reviews values (1, 'Très bon produit'), (2, null), "
                  "(3, 'Livraison lente')")
    llm.responder = lambda wire, body: Answer(
        {"Très bon produit": "Very good product", "Livraison lente": "Slow delivery"}[
            sent_text(last_user_text(wire, body))])
    rows = alice.execute("select id, dbms_cloud_ai.translate('P', body, 'fr', 'en') "
                         "from reviews order by id").fetchall()
    assert rows == [(1, "Very good product"), (2, None), (3, "Slow delivery")]
    assert len(llm.requests) == 2


@pytest.mark.parametrize("provider", ["openai", "anthropic", "cohere", "google"])
def test_translate_works_with_every_provider(alice, llm, provider):
    make_profile(alice, llm, provider=provider)
    llm.responder = lambda wire, body: Answer(f"[{wire}] Hallo Welt")
    assert translate(alice, "Hello world", "German") == f"[{provider}] Hallo Welt"
    assert "Hello world" in llm.requests[0].body.decode()
    assert generate(alice, "Hello world", action="translate",
                    attributes='{"target_language": "de"}') == f"[{provider}] Hallo Welt"


# --- inside conversations ------------------------------------------------------------------

def test_summarize_and_translate_neither_read_nor_write_conversation_history(alice, llm):
    make_profile(alice, llm, conversation=True, target_language="fr")
    generate(alice, "What is MVCC?", action="chat")                # the session conversation
    cid = alice.execute("select dbms_cloud_ai.create_conversation('{\"title\": \"t\"}')"
                        ).fetchone()[0]
    params = json.dumps({"conversation_id": cid})
    generate(alice, "What is WAL?", action="chat", params=params)    # a named one
    named = "select count(*) from dbms_cloud_ai.user_cloud_ai_conversation_prompts " \
            "where conversation_id = %s"
    session = "select count(*) from dbms_cloud_ai.session_cloud_ai_conversation_prompts"
    assert alice.execute(named, (cid,)).fetchone()[0] == 1
    assert alice.execute(session).fetchone()[0] == 1
    llm.requests.clear()
    # The profile's session conversation, params' conversation_id, the session's id.
    generate(alice, "A text to summarize.", action="summarize")
    generate(alice, "A text to translate.", action="translate")
    generate(alice, "Another text to summarize.", action="summarize", params=params)
    generate(alice, "Another text to translate.", action="translate", params=params)
    alice.execute("select dbms_cloud_ai.set_conversation_id(%s)", (cid,))
    generate(alice, "A third text to summarize.", action="summarize",
             params='{"max_words": 10}')
    generate(alice, "A third text to translate.", action="translate")
    summarize(alice, "A fourth text.")
    translate(alice, "A fourth text.")
    assert len(llm.requests) == 8
    for r in llm.requests:
        with case(last_user_text("openai", r.json)):
            assert [m["role"] for m in r.json["messages"]] == ["system", "user"]
            assert "MVCC" not in r.body.decode() and "WAL" not in r.body.decode()
    assert alice.execute(named, (cid,)).fetchone()[0] == 1
    assert alice.execute(session).fetchone()[0] == 1
    text_calls = [c for c in calls(alice) if c[0] in ("SUMMARIZE", "TRANSLATE")]
    assert len(text_calls) == 8 and all(c[4] is None for c in text_calls)


def test_malformed_conversation_id_is_ignored_by_text_actions(alice, llm):
    """Oracle limits conversations to runsql, showsql, explainsql, narrate and
    chat: the other actions do not look at conversation_id."""
    make_profile(alice, llm)
    generate(alice, "text", action="summarize", params='{"conversation_id": "not-an-id"}')
    assert len(llm.requests) == 1


def test_context_window_attribute(alice, llm):
    make_profile(alice, llm)
    for bad in ("100", "many", "-1"):
        with case(bad):
            with raises("22023"):
                alice.execute("select dbms_cloud_ai.set_attribute('P', 'context_window', %s)",
                              (bad,))
    alice.execute("select dbms_cloud_ai.set_attribute('P', 'context_window', '4096')")
    assert alice.execute("select attribute_value from dbms_cloud_ai.user_cloud_ai_profile_attributes "
                         "where attribute_name = 'context_window'").fetchone()[0] == "4096"
    assert alice.execute("select default_value from dbms_cloud_ai.profile_attribute_names "
                         "where attribute_name = 'context_window'").fetchone()[0] == "by model"


# --- the splitter alone (no server) -------------------------------------------------------------

def test_split_invariants_on_random_texts():
    """Exactly ceil(L / T) chunks, none longer than T / 0.8, together the text."""
    import random

    from dbms_cloud_ai.text import chunks as ta
    rnd = random.Random(8)
    pieces = ["word", "longerword", "a", ".", "!", "?", "\n", "\n\n", " ", "  ", "\t", "。",
              "é", "x" * 40, ". ", "\n \n"]
    for _ in range(300):
        text = "".join(rnd.choice(pieces) + (" " if rnd.random() < 0.6 else "")
                       for _ in range(rnd.randint(1, 2500)))
        target = rnd.choice([10, 37, 100, 240, 1000, 2880])
        chunks = ta.split(text, target)
        assert len(chunks) == math.ceil(len(text) / target) or (len(text) == 0 and len(chunks) == 1)
        assert "".join(c.text + c.sep for c in chunks) == text
        assert all(len(c.text) <= ta.max_chunk(target) for c in chunks)
        assert all(c.text for c in chunks) or len(text) == 0
        assert chunks[-1].sep == ""


def test_call_count_formula():
    from dbms_cloud_ai.text import actions as ta
    assert ta.summary_calls(1, "map_reduce", 7) == 1
    assert ta.summary_calls(1, "iterative_refinement", 7) == 1
    assert ta.summary_calls(5, "iterative_refinement", 7) == 5
    assert ta.summary_calls(5, "map_reduce", 7) == 6
    assert ta.summary_calls(7, "map_reduce", 7) == 8
    assert ta.summary_calls(8, "map_reduce", 7) == 8 + 2 + 1
    assert ta.summary_calls(50, "map_reduce", 7) == 50 + 8 + 2 + 1
    assert ta.summary_calls(100, "map_reduce", 2) == 100 + 50 + 25 + 13 + 7 + 4 + 2 + 1
