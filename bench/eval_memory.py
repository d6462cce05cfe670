"""Memory-extraction evaluation (issue 17): precision and recall of long-term memory extraction.

Run by `make bench` (scripted, and with a local model when LOCAL_MODEL_URL is set), or against
any server where postgres is a trust-auth superuser:

    .venv/bin/python -m bench.eval_memory --scripted [--verbose] [--json OUT]
    .venv/bin/python -m bench.eval_memory --url http://127.0.0.1:8080 --model NAME
        [--api-key KEY] [--live-chat] [--set bench/memory_eval.json] [--verbose] [--json OUT] [--keep]

It creates a fresh database dca_eval_mem with the extension, switches long-term memory on for its
organization, and makes the login role eval_mem_gw a trusted gateway (identity 'asserted') with
a profile that has long_term_memory on.  Each conversation of the set (bench/memory_eval.json) is
run with its own end user (set_end_user('eval-<id>')) as a named conversation, turn by turn,
through generate(prompt, profile, 'chat'); then every pending memory job is made due and
CALL dbms_cloud_ai.run_memory_jobs() runs them all (timed), and the memories are read from
dba_cloud_ai_memories.

The model:
  --scripted  a fake LLM in this process (tools/fake_llm.py).  Chat turns get the set's canned
              assistant replies; an extraction gets a cue-based answer (every user sentence
              starting at one of SCRIPTED_CUES becomes a fact quoting it): a keyword heuristic,
              not a model, so its figures are a floor, not a target.
  --url URL --model NAME  an OpenAI-compatible server (llama.cpp, llama-cpp-python, Ollama...).
              By default the profile points at a relay in this process: chat turns get the
              canned replies (the assistant's statements are then the set's, the same for every
              model, so "anything only the assistant said" is tested), and each extraction
              request is forwarded to URL untouched, its answer returned untouched (and kept for
              --verbose / --json).  With --live-chat the profile points at URL itself (a host ACE
              for its host and port, as demo/run_demo.py adds) and the model answers the chat
              turns too: end to end, but the assistant non-facts then refer to replies the model
              did not give.

Scoring (case-insensitive substring): a memory matches an expected fact when it contains one
keyword of every group of that fact; it hits a non-fact likewise.  Memories are scored against
their own conversation only (one end user per conversation).
  precision = memories that match some expected fact / memories extracted
  recall    = expected facts matched by some memory / expected facts
Non-fact hits are counted by kind (question, request, assistant, hypothetical, ...).  Jobs that
failed (unparseable_output, provider_error) store nothing and so cost recall: their reasons are
printed.  Latency: the wall time of run_memory_jobs, and each extraction call's latency_ms.

An evaluation, not a test: it exits 0 whatever the scores (2 if no server).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from fake_llm import Answer, FakeLLM, Raw, extract_memories

from bench import ROOT
from bench.benchlib import connect, drop_database, durability, fresh_database, summary

DBNAME = "dca_eval_mem"
GATEWAY = "eval_mem_gw"
PROFILE = "EVAL_MEM"
CREDENTIAL = "EVAL_MEM_CRED"
DEFAULT_SET = ROOT / "bench" / "memory_eval.json"
EXTRACT_PREFIX = "You maintain long-term memory"   # memory/jobs.py's extraction prompt
DEFAULT_REPLY = "Noted."
# The scripted extractor's cues: phrases that often open a statement about oneself.
SCRIPTED_CUES = ["from now on", "always", "call me", "i'm ", "i am ", "we're ", "i have ",
                 "i do all"]


# --- the set and the scoring (pure: tests/unit/test_memory_eval_set.py uses them) ------------

def load_set(path=DEFAULT_SET) -> list[dict]:
    return json.loads(pathlib.Path(path).read_text(encoding="utf-8"))["conversations"]


def matches(memory: str, groups: list[list[str]]) -> bool:
    """One keyword of every group occurs in the memory (case-insensitive)."""
    text = memory.casefold()
    return bool(groups) and all(any(k.casefold() in text for k in g) for g in groups)


def score_conversation(convo: dict, memories: list[str]) -> dict:
    facts, non_facts = convo["facts"], convo["non_facts"]
    correct = [m for m in memories if any(matches(m, f["keywords"]) for f in facts)]
    found = [f["fact"] for f in facts if any(matches(m, f["keywords"]) for m in memories)]
    hits = [{"kind": n["kind"], "text": n["text"], "memory": m}
            for n in non_facts for m in memories if matches(m, n["keywords"])]
    return {"id": convo["id"], "memories": memories, "extracted": len(memories),
            "correct": len(correct), "expected": len(facts), "found": len(found),
            "missed": [f["fact"] for f in facts if f["fact"] not in found],
            "wrong": [m for m in memories if m not in correct], "non_fact_hits": hits}


def totals(scored: list[dict]) -> dict:
    extracted = sum(s["extracted"] for s in scored)
    correct = sum(s["correct"] for s in scored)
    expected = sum(s["expected"] for s in scored)
    found = sum(s["found"] for s in scored)
    by_kind: dict[str, int] = {}
    for s in scored:
        for h in s["non_fact_hits"]:
            by_kind[h["kind"]] = by_kind.get(h["kind"], 0) + 1
    return {"conversations": len(scored), "extracted": extracted, "correct": correct,
            "expected": expected, "found": found,
            "precision": correct / extracted if extracted else None,
            "recall": found / expected if expected else None,
            "non_fact_hits": sum(by_kind.values()), "non_fact_hits_by_kind": by_kind,
            "memories_in_fact_free_conversations": sum(s["extracted"] for s in scored
                                                       if not s["expected"])}


# --- the model side ---------------------------------------------------------------------------

def upstream_chat_url(url: str) -> str:
    """Where the OpenAI wire's chat completions live under ``url`` (as the
    extension's openai-compatible adapter resolves a provider_endpoint)."""
    base = url.rstrip("/")
    path = urlsplit(base).path
    if path.endswith("/chat/completions"):
        return base
    last = path.rsplit("/", 1)[-1]
    if last.startswith("v") and last[1:2].isdigit():
        return base + "/chat/completions"
    return base + "/v1/chat/completions"


class Model:
    """The fake LLM this process serves: canned chat replies, and extractions
    answered by the cue heuristic (scripted) or forwarded to a real server."""

    def __init__(self, upstream: str | None, api_key: str | None, timeout: float):
        self.upstream, self.api_key, self.timeout = upstream, api_key, timeout
        self.reply = DEFAULT_REPLY
        self.extractions: list[dict] = []    # {"conversation", "status", "text", "seconds"}
        self.fake = FakeLLM(self.respond).start()

    def respond(self, wire, body):
        msgs = body.get("messages") or []
        if not (msgs and str(msgs[0].get("content", "")).startswith(EXTRACT_PREFIX)):
            return Answer(self.reply)
        said = " ".join(m.get("text", "") for m in json.loads(msgs[1]["content"]) if m.get("id"))
        if self.upstream is None:
            ans = extract_memories(body, SCRIPTED_CUES)
            self.extractions.append({"said": said, "status": 200, "text": ans.text, "seconds": 0.0})
            return ans
        headers = {"content-type": "application/json"}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.upstream, json.dumps(body).encode(), headers)
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                status, payload = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, payload = e.code, e.read()
        except (urllib.error.URLError, TimeoutError, OSError) as e:
            status, payload = 502, json.dumps({"error": {"message": f"relay: {e}"}}).encode()
        took = time.perf_counter() - t0
        try:
            text = json.loads(payload)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            text = payload.decode("utf-8", "replace")[:2000]
        self.extractions.append({"said": said, "status": status, "text": text, "seconds": took})
        return Raw(status, payload)

    def stop(self):
        self.fake.stop()


# --- the database side ------------------------------------------------------------------------

def setup(endpoint: str, model: str, api_key: str, ace: tuple[str, int] | None) -> list[str]:
    created = fresh_database(DBNAME, (GATEWAY,))
    with connect("postgres", DBNAME) as c:
        c.execute(f"grant dbms_cloud_ai_user to {GATEWAY}")
        c.execute("select dbms_cloud_ai.enable_memory()")
        c.execute("select dbms_cloud_ai.set_memory_role(%s, identity => 'asserted')", (GATEWAY,))
        if ace:
            c.execute("select dbms_cloud_ai.append_host_ace(host => %s, principal_name => %s, "
                      "lower_port => %s)", (ace[0], GATEWAY, ace[1]))
    with connect(GATEWAY, DBNAME) as c:
        c.execute("select dbms_cloud.create_credential(%s, 'user', %s)", (CREDENTIAL, api_key))
        c.execute("select dbms_cloud_ai.create_profile(%s, %s)", (PROFILE, json.dumps({
            "provider_endpoint": endpoint, "model": model, "credential_name": CREDENTIAL,
            "temperature": 0, "long_term_memory": True})))
    return created


def run_conversations(convos: list[dict], model: Model | None) -> tuple[dict, list[float]]:
    """Each conversation as its own end user; returns {conversation_id: set id}, turn seconds."""
    ids, turn_s = {}, []
    with connect(GATEWAY, DBNAME) as c:
        for convo in convos:
            c.execute("select dbms_cloud_ai.set_end_user(%s)", ("eval-" + convo["id"],))
            cid = c.execute("select dbms_cloud_ai.create_conversation(%s)",
                            (json.dumps({"title": convo["id"]}),)).fetchone()[0]
            ids[cid.lower()] = convo["id"]
            for turn in convo["turns"]:
                if model is not None:
                    model.reply = turn.get("assistant") or DEFAULT_REPLY
                t0 = time.perf_counter()
                c.execute("select dbms_cloud_ai.generate(%s, %s, 'chat', params => %s)",
                          (turn["user"], PROFILE, json.dumps({"conversation_id": cid})))
                turn_s.append(time.perf_counter() - t0)
    return ids, turn_s


def run_jobs() -> tuple[float, int]:
    with connect("postgres", DBNAME) as su:
        su.execute("update dbms_cloud_ai._memory_job set due_at = now() where status = 'pending'")
        t0 = time.perf_counter()
        n = su.execute("call dbms_cloud_ai.run_memory_jobs(1000)").fetchone()[0]
        return time.perf_counter() - t0, n


def read_results(ids: dict) -> tuple[dict, dict]:
    """Memories by set id, and each set id's job (status, reason, counts, latency)."""
    mems: dict[str, list[str]] = {v: [] for v in ids.values()}
    jobs: dict[str, dict] = {}
    with connect("postgres", DBNAME) as su:
        for cid, fact in su.execute(
                "select lower(conversation_id), fact from dbms_cloud_ai.dba_cloud_ai_memories "
                "where organization = %s order by created, memory_id", (DBNAME,)):
            mems[ids[cid]].append(fact)
        cur = su.execute("""
            select j.conversation_id::text as cid, j.status, j.reason, j.facts_proposed,
                   j.facts_stored, j.facts_rejected, j.facts_duplicate,
                   (select pg_catalog.array_agg(m.latency_ms order by m.created)
                      from dbms_cloud_ai._model_call m
                     where m.conversation_id = j.conversation_id and m.purpose = 'memory')
                   as latency_ms
              from dbms_cloud_ai._memory_job j""")
        cols = [d.name for d in cur.description]
        for row in cur.fetchall():
            job = dict(zip(cols, row))
            jobs[ids[job.pop("cid")]] = job
    return mems, jobs


# --- report -----------------------------------------------------------------------------------

def pct(x) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def report(scored, jobs, tot, wall, n_jobs, turn_s, extractions, verbose) -> dict:
    lat = [ms for j in jobs.values() for ms in (j["latency_ms"] or [])]
    reasons: dict[str, int] = {}
    for j in jobs.values():
        key = f"{j['status']}/{j['reason']}"
        reasons[key] = reasons.get(key, 0) + 1
    if verbose:
        for s in scored:
            j = jobs.get(s["id"], {})
            print(f"  {s['id']}: job {j.get('status')}/{j.get('reason')}, proposed "
                  f"{j.get('facts_proposed')}, rejected {j.get('facts_rejected')}; memories "
                  f"{s['extracted']} (correct {s['correct']}), facts found {s['found']}/{s['expected']}"
                  + (f", {len(s['non_fact_hits'])} non-fact hit(s)" if s["non_fact_hits"] else ""))
            for m in s["memories"]:
                print(f"      {'+' if m not in s['wrong'] else '-'} {m}")
            for f in s["missed"]:
                print(f"      missed: {f}")
            for h in s["non_fact_hits"]:
                print(f"      non-fact ({h['kind']}: {h['text']}): {h['memory']}")
        rejected = [e for e in extractions if e["status"] != 200]
        if rejected:
            print(f"  {len(rejected)} extraction request(s) the server refused:")
            for e in rejected:
                print(f"      HTTP {e['status']}: {e['text'][:300]!r}")
    print(f"totals: {tot['conversations']} conversations, {tot['expected']} expected facts, "
          f"{tot['extracted']} memories extracted ({tot['memories_in_fact_free_conversations']} "
          f"in conversations with no fact)")
    print(f"  precision {pct(tot['precision'])} ({tot['correct']}/{tot['extracted']}), "
          f"recall {pct(tot['recall'])} ({tot['found']}/{tot['expected']}), non-fact hits "
          f"{tot['non_fact_hits']}"
          + (" (" + ", ".join(f"{k} {v}" for k, v in sorted(tot["non_fact_hits_by_kind"].items()))
             + ")" if tot["non_fact_hits"] else ""))
    print("  jobs: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()))
          + f"; facts proposed {sum(j['facts_proposed'] or 0 for j in jobs.values())}, "
            f"rejected by the extension {sum(j['facts_rejected'] or 0 for j in jobs.values())}")
    out = {"totals": tot, "jobs_by_reason": reasons, "run_memory_jobs_seconds": wall,
           "jobs_run": n_jobs, "chat_turn_seconds": summary(turn_s) if turn_s else None,
           "extraction_latency_ms": summary(lat) if lat else None, "conversations": scored,
           "jobs": {k: {**v} for k, v in jobs.items()}, "extractions": extractions}
    line = f"  latency: run_memory_jobs {wall:.2f}s for {n_jobs} jobs"
    if lat:
        s = out["extraction_latency_ms"]
        line += (f"; extraction call p50 {s['p50']:.0f} ms, p95 {s['p95']:.0f} ms, "
                 f"max {s['max']:.0f} ms ({s['n']} calls)")
    if turn_s:
        line += f"; chat turn p50 {summary(turn_s)['p50'] * 1000:.0f} ms"
    print(line)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--scripted", action="store_true", help="the scripted fake extractor")
    mode.add_argument("--url", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8080")
    ap.add_argument("--model", help="the model name the server serves (with --url)")
    ap.add_argument("--api-key", default="none", help="the server's key, if it wants one")
    ap.add_argument("--live-chat", action="store_true",
                    help="the model answers the chat turns too (the profile points at --url)")
    ap.add_argument("--timeout", type=float, default=600.0, help="relay timeout per request (s)")
    ap.add_argument("--set", default=str(DEFAULT_SET), help="the evaluation set (JSON)")
    ap.add_argument("--verbose", action="store_true", help="per conversation: memories, misses")
    ap.add_argument("--json", metavar="OUT", help="write the figures and every memory here")
    ap.add_argument("--keep", action="store_true", help=f"keep database {DBNAME} afterwards")
    args = ap.parse_args()
    if args.url and not args.model:
        ap.error("--url needs --model")
    if not os.environ.get("DCA_PGHOST"):
        print("eval_memory: DCA_PGHOST/DCA_PGPORT not set (socket directory and port of a server "
              "where postgres is a trust-auth superuser)", file=sys.stderr)
        return 2

    convos = load_set(args.set)
    model: Model | None = None
    ace = None
    if args.live_chat:
        if not args.url:
            ap.error("--live-chat needs --url")
        endpoint = args.url if "://" in args.url else "http://" + args.url
        parts = urlsplit(endpoint)
        ace = (parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
        label = f"OpenAI-compatible server {endpoint}, model {args.model} (chat and extraction)"
    else:
        upstream = upstream_chat_url(args.url if "://" in (args.url or "://")
                                     else "http://" + args.url) if args.url else None
        model = Model(upstream, None if args.api_key == "none" else args.api_key, args.timeout)
        endpoint = model.fake.url
        label = ("scripted fake (cue heuristic, not a model)" if args.scripted else
                 f"OpenAI-compatible server {upstream}, model {args.model} (extraction; chat "
                 "turns get the set's canned replies)")
    print(f"eval_memory: {durability()}")
    print(f"memory-extraction evaluation: {len(convos)} conversations from {args.set}; "
          f"model: {label}", flush=True)
    created: list[str] = []
    try:
        created = setup(endpoint, args.model or "scripted", args.api_key, ace)
        ids, turn_s = run_conversations(convos, model)
        wall, n_jobs = run_jobs()
        mems, jobs = read_results(ids)
        scored = [score_conversation(c, mems[c["id"]]) for c in convos]
        out = report(scored, jobs, totals(scored), wall, n_jobs, turn_s,
                     model.extractions if model else [], args.verbose)
        out["model"] = label
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(out, indent=2, default=str) + "\n",
                                               encoding="utf-8")
            print(f"  written to {args.json}")
        return 0
    finally:
        if model is not None:
            model.stop()
        if not args.keep:
            drop_database(DBNAME, created)


if __name__ == "__main__":
    sys.exit(main())
