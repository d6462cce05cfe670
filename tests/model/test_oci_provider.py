"""provider "oci": Oracle's attributes accepted and shown; its calls routed to an
OpenAI-compatible endpoint (the profile's provider_endpoint, else the
administrator's oci_genai_endpoint), or refused with 0A000 when they are made."""

from __future__ import annotations

import json

from fake_llm import Answer
from helpers import API_KEY, generate, hint_of, raises
from profiles.test_credentials import create_oci_credential

OCI_ATTRS = {"provider": "oci", "credential_name": "OCI_CRED", "region": "us-chicago-1",
             "oci_compartment_id": "ocid1.compartment.oc1..x", "oci_endpoint_id": "ocid1.endpoint",
             "oci_apiformat": "generic", "oci_runtimetype": "LLAMA"}


def oci_profile(conn, name="P", **changes):
    conn.execute("select dbms_cloud_ai.create_profile(%s, %s)",
                 (name, json.dumps({**OCI_ATTRS, **changes})))


def shown(conn, name="P"):
    return dict(conn.execute("""
        select a.attribute_name, a.attribute_value
          from dbms_cloud_ai.user_cloud_ai_profile_attributes a where a.profile_name = %s""",
                             (name,)).fetchall())


def test_oci_profile_is_created_without_endpoint_or_acl(db, alice):
    create_oci_credential(alice)
    oci_profile(alice)
    a = shown(alice)
    assert a["provider"] == "oci" and a["region"] == "us-chicago-1"
    assert a["oci_compartment_id"] == "ocid1.compartment.oc1..x"
    assert a["oci_endpoint_id"] == "ocid1.endpoint"
    assert a["oci_apiformat"] == "generic"       # the text given, as Oracle shows it
    assert a["oci_runtimetype"] == "LLAMA"
    alice.execute("select dbms_cloud_ai.set_attribute('P', 'oci_apiformat', 'COHERE')")
    alice.execute("""select dbms_cloud_ai.set_attributes('P', '{"oci_compartment_id": "c2"}')""")
    assert shown(alice)["oci_apiformat"] == "COHERE"
    assert shown(alice)["oci_compartment_id"] == "c2"
    with raises("22023"):
        alice.execute("select dbms_cloud_ai.set_attribute('P', 'oci_apiformat', 'XML')")


def test_call_without_an_endpoint_is_refused_when_made(alice, llm):
    create_oci_credential(alice)
    oci_profile(alice, name="OCI_GENAI")
    with raises("0A000") as e:
        generate(alice, "What is 4 + 4 ?", profile="OCI_GENAI")
    assert "OCI_GENAI" in str(e["error"])
    assert "oci_genai_endpoint" in hint_of(e)
    assert llm.requests == []


def test_admin_endpoint_routes_the_call_with_oracles_default_model(db, alice, llm):
    create_oci_credential(alice)
    oci_profile(alice)
    admin = db.connect("ai_admin")
    admin.execute("select dbms_cloud_ai.set_oci_genai_endpoint(%s)", (llm.url,))
    llm.script(Answer("eight"))
    assert generate(alice, "What is 4 + 4 ?") == "eight"
    (req,) = llm.requests
    assert req.path == "/v1/chat/completions"
    assert req.json["model"] == "meta.llama-3.3-70b-instruct"
    assert "authorization" not in req.headers       # an OCI signing key is never sent


def test_api_key_credential_is_sent_as_bearer(db, alice, llm):
    alice.execute("select dbms_cloud.create_credential('OCI_CRED', 'user', %s)", (API_KEY,))
    oci_profile(alice, model="cohere.command-r-plus", provider_endpoint=llm.url)
    llm.script(Answer("ok"))
    assert generate(alice, "hi") == "ok"
    (req,) = llm.requests
    assert req.json["model"] == "cohere.command-r-plus"
    assert req.headers["authorization"] == f"Bearer {API_KEY}"


def test_routed_host_needs_a_host_ace(db, alice, fake_llm):
    fake_llm.reset()
    create_oci_credential(alice)
    oci_profile(alice)
    db.admin.execute("select dbms_cloud_ai.set_oci_genai_endpoint(%s)", (fake_llm.url,))
    with raises("42501"):
        generate(alice, "hi")
    assert fake_llm.requests == []


def test_only_administrators_set_the_endpoint(db, alice, llm):
    with raises("42501"):
        alice.execute("select dbms_cloud_ai.set_oci_genai_endpoint(%s)", (llm.url,))
    with raises("22023"):
        db.admin.execute("select dbms_cloud_ai.set_oci_genai_endpoint('ftp://x')")
    db.admin.execute("select dbms_cloud_ai.set_oci_genai_endpoint(%s)", (llm.url + "/",))
    assert alice.execute("select url from dbms_cloud_ai._admin_endpoint").fetchone()[0] == llm.url
    db.admin.execute("select dbms_cloud_ai.set_oci_genai_endpoint(NULL)")
    assert alice.execute("select count(*) from dbms_cloud_ai._admin_endpoint").fetchone()[0] == 0
    with raises("42501"):
        alice.execute("delete from dbms_cloud_ai._admin_endpoint")


def test_embeddings_go_to_the_routed_endpoint_with_oracles_default_model(db, alice, llm):
    create_oci_credential(alice)
    oci_profile(alice, "EMB")
    alice.execute("create table handbook (id int primary key, body text)")
    alice.execute("insert into handbook values (1, 'The cafeteria opens at eight.')")
    index = json.dumps({"location": "table:alice.handbook(id, body)", "profile_name": "EMB"})
    with raises("0A000") as e:           # no endpoint yet: refused at the refresh, naming the profile
        alice.execute("select dbms_cloud_ai.create_vector_index('DOCS', %s)", (index,))
    assert "EMB" in str(e["error"])
    db.admin.execute("select dbms_cloud_ai.set_oci_genai_endpoint(%s)", (llm.url,))
    alice.execute("select dbms_cloud_ai.create_vector_index('DOCS', %s)", (index,))
    (req,) = llm.embedding_requests
    assert req.path == "/v1/embeddings"
    assert req.json["model"] == "cohere.embed-english-v3.0"
    assert "authorization" not in req.headers
