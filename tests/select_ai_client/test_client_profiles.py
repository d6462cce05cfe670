"""The select_ai client's profiles against a real server and the fake model: what Oracle's
suite does not cover here (an OpenAI-compatible endpoint of our own, the values sent, the
shapes returned, the ORA numbers of the refusals, the async twins)."""

from __future__ import annotations

import json

import oracledb
import pandas
import pytest
import select_ai
from fake_llm import Answer
from select_ai import Action, AsyncProfile, Profile, ProfileAttributes, Provider
from select_ai_client.test_client_foundation import dsn


@pytest.fixture
def client(db, llm):
    """select_ai connected as alice, with a credential and a table for NL2SQL."""
    alice = db.connect("alice")
    alice.execute("select dbms_cloud.create_credential('CRED', 'user', 'sk-test-0123456789abcdef')")
    alice.execute("create table alice.people (id int primary key, name text)")
    alice.execute("insert into alice.people values (1, 'Ana'), (2, 'Tom')")
    select_ai.connect(user="alice", password="unused", dsn=dsn(db))
    yield alice
    select_ai.disconnect()


def attributes(llm, **more) -> ProfileAttributes:
    return ProfileAttributes(credential_name="CRED", provider=Provider(provider_endpoint=llm.url, model="m-0"),
                             object_list=[{"owner": "alice", "name": "people"}], **more)


def ora(excinfo) -> int:
    assert isinstance(excinfo.value, oracledb.DatabaseError)
    return excinfo.value.args[0].code


def test_providers_know_their_hosts_and_leave_them_out_of_profiles():
    assert select_ai.OpenAIProvider.provider_endpoint == "api.openai.com"
    assert select_ai.AzureProvider(azure_resource_name="r").provider_endpoint == "r.openai.azure.com"
    assert select_ai.AWSProvider(region="eu-west-1").provider_endpoint == \
        "bedrock-runtime.eu-west-1.amazonaws.com"
    sent = json.loads(ProfileAttributes(provider=select_ai.OpenAIProvider(model="m")).json())
    assert sent == {"max_tokens": 1024, "provider": "openai", "model": "m"}
    custom = json.loads(ProfileAttributes(provider=Provider(provider_endpoint="h:1")).json())
    assert custom["provider_endpoint"] == "h:1"
    fetched = ProfileAttributes.create(provider="oci", oci_apiformat="GENERIC", max_tokens="10",
                                       comments="true", object_list='[{"owner": "SH"}]')
    assert isinstance(fetched.provider, select_ai.OCIGenAIProvider)
    assert (fetched.max_tokens, fetched.comments, fetched.object_list) == (10, True, [{"owner": "SH"}])


def test_create_fetch_list_and_delete(client, llm):
    made = Profile("P1", attributes=attributes(llm, comments=True), description="first")
    fetched = Profile.fetch("p1")
    assert fetched.attributes == made.attributes and fetched.description == "first"
    assert [p.profile_name for p in Profile.list("^P")] == ["P1"]
    with pytest.raises(select_ai.ProfileExistsError):
        Profile("P1", attributes=attributes(llm))
    Profile("P1", attributes=ProfileAttributes(temperature=0.5), merge=True)
    merged = Profile.fetch("P1").attributes
    assert (merged.temperature, merged.comments) == (0.5, True)
    Profile("P1", attributes=attributes(llm), replace=True)
    replaced = Profile.fetch("P1")
    assert replaced.attributes.comments is None and replaced.description is None
    replaced.delete()
    with pytest.raises(select_ai.ProfileNotFoundError):
        Profile.fetch("P1")
    with pytest.raises(oracledb.DatabaseError) as e:
        list(Profile.list("[*bad"))
    assert ora(e) == 12726
    with pytest.raises(oracledb.DatabaseError) as e:
        Profile.delete_profile("P1")
    assert ora(e) == 20046
    Profile.delete_profile("P1", force=True)


def test_set_attribute_sends_typed_values(client, llm):
    profile = Profile("P2", attributes=attributes(llm))
    profile.set_attribute("comments", True)
    profile.set_attribute("max_tokens", 99)
    profile.set_attribute("model", "m-1")
    profile.set_attribute("object_list", json.dumps([{"owner": "alice"}]))
    saved = profile.get_attributes()
    assert (saved.comments, saved.max_tokens, saved.provider.model) == (True, 99, "m-1")
    assert saved.object_list == [{"owner": "alice"}]
    # set_attributes merges; ProfileAttributes always holds max_tokens (1024 by default)
    profile.set_attributes(ProfileAttributes(temperature=0.2))
    merged = profile.attributes
    assert (merged.temperature, merged.comments, merged.max_tokens) == (0.2, True, 1024)
    with pytest.raises(oracledb.DatabaseError) as e:
        profile.set_attribute("no_such_attribute", "x")
    assert ora(e) == 20047


def test_generate_actions_and_their_shapes(client, llm):
    profile = Profile("P3", attributes=attributes(llm))
    llm.script(Answer("SELECT p.name FROM alice.people p ORDER BY p.id"))
    frame = profile.run_sql("names of people")
    assert isinstance(frame, pandas.DataFrame) and list(frame["name"]) == ["Ana", "Tom"]
    llm.script(Answer("SELECT p.name FROM alice.people p WHERE p.id > 5"))
    assert profile.run_sql("nobody").empty
    llm.script(Answer("abcdefghij"))
    assert list(profile.chat("hi", stream=True, chunk_size=4)) == ["abcd", "efgh", "ij"]
    prompt = profile.show_prompt("names of people", attributes={"additional_instructions": "XYZ"})
    assert '"type" : "TEXT"' in prompt and "XYZ" in prompt
    assert all(isinstance(m["content"], list) for m in json.loads(prompt))
    llm.script(Answer("hola"))
    assert profile.generate("hi", action=Action.CHAT, params={"request_id": None}) == "hola"
    with pytest.raises(ValueError):
        profile.show_sql("")
    with pytest.raises(ValueError):
        profile.generate("x", action=Action.RUNSQL, stream=True)


def test_feedback_refusals_carry_oracles_numbers(client, llm):
    profile = Profile("P4", attributes=attributes(llm))
    spec = ("names of people", Action.SHOWSQL)
    with pytest.raises(AttributeError):
        profile.add_negative_feedback(prompt_spec=spec)  # negative needs a response
    with pytest.raises(oracledb.DatabaseError) as e:
        profile.add_positive_feedback(prompt_spec=spec)  # no such statement
    assert ora(e) == 20000
    with pytest.raises(oracledb.DatabaseError) as e:
        profile.add_positive_feedback(prompt_spec=spec, sql_id="ahgttusrvh9x5")
    assert ora(e) == 6550
    profile.add_negative_feedback(prompt_spec=spec, response="SELECT p.name FROM alice.people p")
    row = client.execute("select sql_text, feedback_type, response from dbms_cloud_ai.user_cloud_ai_feedback"
                         " where profile_name = 'P4'").fetchone()
    assert row == ("select ai showsql names of people", "negative", "SELECT p.name FROM alice.people p")
    profile.delete_feedback(prompt_spec=spec)
    assert client.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_feedback").fetchone()[0] == 0


def test_select_ai_statement_through_the_cursor_is_logged_and_errors_keep_the_transaction(client, llm):
    Profile("P5", attributes=attributes(llm))
    llm.script(Answer("SELECT count(*) AS n FROM alice.people p"))
    with select_ai.cursor() as cr:
        cr.execute("BEGIN dbms_cloud_ai.set_profile('P5'); END;")
        cr.execute("insert into people values (3, 'Mei')")
        with pytest.raises(oracledb.DatabaseError):
            cr.execute("insert into people values (3, 'again')")
        cr.execute("select count(*) from people")
        assert cr.fetchone()[0] == 3  # the failed insert alone was undone
        cr.execute("select ai showsql how many people")
    sql_id = client.execute("select dbms_cloud_ai.sql_id('select ai showsql how many people')").fetchone()[0]
    Profile("P5").add_positive_feedback(sql_id=sql_id)


def test_synthetic_data_and_its_refusals(client, llm):
    profile = Profile("P6", attributes=attributes(llm))
    llm.script(Answer(json.dumps([{"id": 10, "name": "Lars"}])))
    data = select_ai.SyntheticDataAttributes(object_name="people", record_count=1,
                                             params=select_ai.SyntheticDataParams(sample_rows=0))
    assert profile.generate_synthetic_data(data) is None
    assert client.execute("select name from alice.people where id = 10").fetchone() == ("Lars",)
    bad = select_ai.SyntheticDataAttributes(object_name="people", record_count=1,
                                            params={"priority": "CRITICAL"})
    with pytest.raises(oracledb.DatabaseError) as e:
        profile.generate_synthetic_data(bad)
    assert ora(e) == 20000 and "Invalid value for priority" in str(e.value)


def test_text_actions(client, llm):
    profile = Profile("P7", attributes=attributes(llm))
    llm.script(Answer("Danke"))
    assert profile.translate("Thank you", "en", "de") == "Danke"
    assert "Thank you" in llm.chat_requests[-1].body.decode()
    llm.script(Answer("short"))
    assert profile.summarize(content="a long text " * 20) == "short"
    with pytest.raises(AttributeError):
        profile.summarize()


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_async_profile(client, db, llm, anyio_backend):
    select_ai.create_pool_async(user="alice", password="unused", dsn=dsn(db))
    try:
        profile = await AsyncProfile("A1", attributes=attributes(llm), description="async")
        fetched = await AsyncProfile.fetch("A1")
        assert fetched.attributes == profile.attributes and fetched.description == "async"
        assert [p.profile_name async for p in AsyncProfile.list("^A")] == ["A1"]
        llm.script(Answer("SELECT p.id FROM alice.people p ORDER BY p.id"))
        frame = await profile.run_sql("ids")
        assert list(frame["id"]) == [1, 2]
        llm.script(Answer("abc"))
        chunks = await profile.chat("hi", stream=True, chunk_size=2)
        assert [c async for c in chunks] == ["ab", "c"]
        await profile.set_attribute("max_tokens", 50)
        assert (await profile.get_attributes()).max_tokens == 50
        await profile.delete()
        with pytest.raises(select_ai.ProfileNotFoundError):
            await AsyncProfile.fetch("A1")
    finally:
        await select_ai.async_disconnect()


def test_status_in_oracles_dictionary_view(client, llm):
    profile = Profile("P8", attributes=attributes(llm))
    profile.disable()
    with select_ai.cursor() as cr:
        cr.execute("SELECT status FROM USER_CLOUD_AI_PROFILES WHERE profile_name = :n", n="P8")
        assert cr.fetchone()[0] == "DISABLED"
        with pytest.raises(oracledb.DatabaseError) as e:
            profile.disable()  # already in that state
        assert ora(e) == 20046
        profile.enable()
        cr.execute("SELECT attribute_value FROM user_cloud_ai_profile_attributes"
                   " WHERE profile_name = 'P8' AND attribute_name = 'credential_name'")
        assert cr.fetchone()[0] == "CRED"
