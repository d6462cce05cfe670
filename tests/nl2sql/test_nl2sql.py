"""Natural language to SQL end to end: generate() and select_ai() with scripted model
answers, asserting on what was sent to the model and on what came back.

Fixtures are Oracle's select-ai SDK tables (people, gymnast; reference section 10.2)
in alice's schema and the demo's sales history (schema sh, demo/sample_schema.sql).
Generated SQL runs only under a statement_timeout, so connections that run it set one.
"""

from __future__ import annotations

import json
import re

import pglast
import pytest
from fake_llm import Answer
from helpers import case, generate, make_profile, raises
from nl2sql_fixtures import PEOPLE_GYMNAST, SALES_GRANTS, SALES_SCHEMA, people  # noqa: F401

PEOPLE_COUNT = 'SELECT count(*) AS "People Count" FROM alice.people p'
PEOPLE_COUNT_JSON = '[\n  {\n    "People Count" : 5\n  }\n]'
NO_ROWS = "No data found for the prompt."
TITLE = Answer('{"title": "People", "description": "Questions about people."}')


# --- fixtures and helpers ----------------------------------------------------------------------

@pytest.fixture
def sales(db):
    """The demo's sales schema, loaded by the superuser; alice may read it."""
    db.admin.execute(SALES_SCHEMA)
    db.admin.execute(SALES_GRANTS.format(role="alice"))


def sent(llm, i=-1) -> list[dict]:
    return llm.requests[i].json["messages"]


def question(messages) -> str:
    """The content of the last user message: the rules, then the question."""
    users = [m for m in messages if m.get("role") == "user"]
    return users[-1]["content"]


def table_texts(messages) -> list[str]:
    """The messages describing one table each."""
    return [m["content"] for m in messages
            if isinstance(m, dict) and m.get("role") == "system"
            and re.match(r"CREATE (TABLE|VIEW|MATERIALIZED VIEW|FOREIGN TABLE) ", m["content"])]


def described(messages) -> list[str]:
    """The qualified names of the tables described, in order."""
    return [re.match(r"CREATE (?:TABLE|VIEW|MATERIALIZED VIEW|FOREIGN TABLE) (.+?) \(\n", t).group(1)
            for t in table_texts(messages)]


def table_text(messages, qualified) -> str:
    for t in table_texts(messages):
        if t.startswith(f"CREATE TABLE {qualified} (\n"):
            return t
    raise AssertionError(f"{qualified} is not described: {described(messages)}")


def showprompt(conn, prompt, profile="P", **kw) -> list:
    return json.loads(generate(conn, prompt, profile, "showprompt", **kw))


def messages_of(prompt: list) -> list[dict]:
    """showprompt's messages, without the final note (an object that is not a message)."""
    return [m for m in prompt if "role" in m]


def note_of(prompt: list) -> dict | None:
    return prompt[-1] if prompt and "role" not in prompt[-1] else None


def detail(holder) -> str:
    return holder["error"].diag.message_detail or ""


# --- 1/2. the fixtures and each action ---------------------------------------------------------

def test_sdk_fixture_questions_runsql(people, llm):
    """Oracle's SDK questions: "How many people are there in the database?" gives 5, and so
    does "How many gymnasts in database?"; the answer is Oracle's pretty JSON, exactly."""
    make_profile(people, llm, object_list=[{"owner": "ALICE", "name": "PEOPLE"},
                                           {"owner": "ALICE", "name": "GYMNAST"}])
    llm.script(Answer(PEOPLE_COUNT),
               Answer('SELECT COUNT(g."ID") AS "Gymnast Count" FROM "ALICE"."GYMNAST" g'))
    q1 = "How many people are there in the database?"
    assert generate(people, q1, action="runsql") == PEOPLE_COUNT_JSON
    msgs = sent(llm)
    assert described(msgs) == ["alice.gymnast", "alice.people"]
    assert question(msgs).endswith("\n\nQuestion: " + q1)
    assert generate(people, "How many gymnasts in database?", action="runsql") \
        == '[\n  {\n    "Gymnast Count" : 5\n  }\n]'
    assert len(llm.requests) == 2
    # NULL action is runsql, Oracle's default.
    llm.script(Answer(PEOPLE_COUNT))
    assert people.execute("select dbms_cloud_ai.generate(%s, 'P')", (q1,)).fetchone()[0] \
        == PEOPLE_COUNT_JSON


def test_runsql_renders_values_as_oracle_json(people, llm):
    make_profile(people, llm)
    llm.script(Answer(
        "SELECT p.name, g.total_points, NULL AS nothing, p.id, g.id, p.age, "
        "'It''s \"q\" é' AS \"Quote Test\", p.height > 170 AS tall "
        "FROM alice.people p JOIN alice.gymnast g ON g.id = p.id WHERE p.id IN (1, 3) ORDER BY p.id"))
    out = generate(people, "points of each person", action="runsql")
    assert out == """[
  {
    "name" : "John Smith",
    "total_points" : 36.5,
    "nothing" : null,
    "id" : 1,
    "id" : 1,
    "age" : 22,
    "Quote Test" : "It's \\"q\\" é",
    "tall" : false
  },
  {
    "name" : "Michael Brown",
    "total_points" : 36.6,
    "nothing" : null,
    "id" : 3,
    "id" : 3,
    "age" : 24,
    "Quote Test" : "It's \\"q\\" é",
    "tall" : true
  }
]"""
    # Columns come in the query's order, not sorted; no rows is Oracle's sentence.
    llm.script(Answer('SELECT p.hometown AS "Z Town", p.age AS "A Age", p.name AS "M Person" '
                      "FROM alice.people p WHERE p.id = 4"))
    out = generate(people, "about Sophia", action="runsql")
    assert out == ('[\n  {\n    "Z Town" : "Houston",\n    "A Age" : 19,\n'
                   '    "M Person" : "Sophia Lee"\n  }\n]')
    llm.script(Answer("SELECT p.name FROM alice.people p WHERE p.age > 100"))
    assert generate(people, "who is over 100", action="runsql") == NO_ROWS


def test_runsql_keeps_the_models_readable_aliases(people, llm):
    """The prompt asks for readable aliases in double quotes; a valid PostgreSQL query that
    follows that rule must come back with its aliases as written."""
    make_profile(people, llm)
    llm.script(Answer('SELECT p.name AS "Name", p.age AS "Age" FROM alice.people p WHERE p.id = 1'))
    out = generate(people, "name and age of person 1", action="runsql")
    # Case folding (for Oracle-style upper-case references) must leave the model's own
    # aliases alone, even when their lower-case form is a column name.
    assert out == '[\n  {\n    "Name" : "John Smith",\n    "Age" : 22\n  }\n]'


def test_showsql_is_formatted_postgresql_without_semicolon(people, llm):
    make_profile(people, llm)
    answer = ("Here is the query:\n```sql\nselect upper(p.name) as \"Upper Name\", "
              "round(avg(g.total_points), 1) as \"Avg Points\" from alice.people p join "
              "alice.gymnast g on g.id = p.id group by upper(p.name) order by 2 desc;\n```\n"
              "It averages the points.")
    llm.script(Answer(answer))
    # showsql does not run the query: no statement_timeout needed.
    people.execute("set statement_timeout = 0")
    sql = generate(people, "average points per person", action="showsql")
    assert len(llm.requests) == 1
    assert not sql.rstrip().endswith(";")
    assert "pg_catalog." not in sql
    assert "```" not in sql and "Here is" not in sql and "averages" not in sql
    assert sql.startswith("SELECT upper(p.name) AS \"Upper Name\",")
    assert "round(avg(g.total_points), 1)" in re.sub(r"\s+", " ", sql)
    assert "\nFROM alice.people AS p\n" in sql
    assert "\nGROUP BY upper(p.name)\nORDER BY 2 DESC" in sql
    assert len(sql.splitlines()) >= 5            # one clause per line, laid out
    # runsql and narrate run it: without a statement_timeout they refuse, before any
    # model call.
    llm.reset()
    for action in ("runsql", "narrate"):
        with case(action), raises("55000"):
            generate(people, "how many people", action=action)
    assert llm.requests == []


def test_explainsql(people, llm):
    make_profile(people, llm)
    llm.script(Answer(PEOPLE_COUNT))
    shown = generate(people, "how many people", action="showsql")
    llm.reset()
    llm.script(Answer(PEOPLE_COUNT), Answer("**Explanation:** It counts the rows of alice.people."))
    out = generate(people, "how many people", action="explainsql")
    assert out == f"```sql\n{shown};\n```\n\n**Explanation:**\nIt counts the rows of alice.people."
    assert len(llm.requests) == 2
    second = sent(llm, 1)
    assert shown in second[-1]["content"]
    assert "how many people" in second[-1]["content"]
    assert not table_texts(second)           # the explanation request carries no schema


def test_narrate_sends_the_result_rows(people, llm):
    make_profile(people, llm)
    llm.script(Answer("SELECT p.name, g.total_points FROM alice.people p "
                      "JOIN alice.gymnast g ON g.id = p.id ORDER BY g.total_points DESC LIMIT 2"),
               Answer("Michael Brown leads with 36.6 points, then John Smith with 36.5."))
    out = generate(people, "who are the two best gymnasts", action="narrate")
    assert out == "Michael Brown leads with 36.6 points, then John Smith with 36.5."
    assert len(llm.requests) == 2
    data = sent(llm, 1)[-1]["content"]
    assert "who are the two best gymnasts" in data
    assert '{"name":"Michael Brown","total_points":36.6}' in data
    assert '{"name":"John Smith","total_points":36.5}' in data
    assert "Sophia Lee" not in data


def test_showprompt_makes_no_request(people, llm):
    make_profile(people, llm, additional_instructions="Heights are in centimetres.")
    out = generate(people, "how tall is John Smith", action="showprompt")
    assert llm.requests == []
    prompt = json.loads(out)
    assert isinstance(prompt, list) and note_of(prompt) is None
    assert all(set(m) == {"role", "content"} for m in prompt)
    assert prompt[-1]["role"] == "user"
    assert prompt[-1]["content"].endswith("\n\nQuestion: how tall is John Smith")
    assert described(prompt) == ["alice.gymnast", "alice.people"]
    # What showprompt shows is what runsql sends.
    llm.script(Answer("SELECT p.height FROM alice.people p WHERE p.name = 'John Smith'"))
    assert generate(people, "how tall is John Smith", action="runsql") \
        == '[\n  {\n    "height" : 170\n  }\n]'
    assert sent(llm, 0) == prompt


# --- 3. the schema text that is sent -----------------------------------------------------------

def test_names_are_schema_qualified_and_quoted_only_where_needed(people, llm):
    people.execute('create table alice."Order Items" (item_id int primary key, '
                   '"Unit Price" numeric(8,2), "camelCase" text, plain_col int)')
    make_profile(people, llm)
    prompt = showprompt(people, "order items and their prices")
    assert sorted(described(prompt)) == ['alice."Order Items"', "alice.gymnast", "alice.people"]
    text = table_text(prompt, 'alice."Order Items"')
    assert '\n  "Unit Price" numeric(8,2),' in text
    assert '\n  "camelCase" text,' in text
    assert "\n  plain_col integer\n" in text
    assert "\n  item_id integer NOT NULL," in text
    people_text = table_text(prompt, "alice.people")
    assert "\n  name character varying(50),  -- values: 'Emma Johnson', " in people_text
    assert '"alice"' not in json.dumps(prompt) and '"people"' not in people_text

    # The model may use them as described.
    llm.script(Answer('SELECT count(*) AS "Items" FROM alice."Order Items" oi'))
    assert generate(people, "how many order items", action="runsql") \
        == '[\n  {\n    "Items" : 0\n  }\n]'


def test_comments_only_when_asked_with_quotes_doubled(people, llm):
    people.execute('create table alice."Order Items" (item_id int, "Unit Price" numeric)')
    people.execute("comment on table alice.people is 'The people''s register'")
    people.execute("comment on column alice.people.height is 'Height in cm; don''t guess'")
    people.execute("""comment on column alice."Order Items"."Unit Price" is 'Price, ''net'''""")
    make_profile(people, llm)
    off = showprompt(people, "how tall")
    assert "COMMENT ON" not in json.dumps(off)
    assert "register" not in json.dumps(off)
    on = messages_of(showprompt(people, "how tall", attributes='{"comments": true}'))
    text = table_text(on, "alice.people")
    assert "\nCOMMENT ON TABLE alice.people IS 'The people''s register';" in text
    assert "\nCOMMENT ON COLUMN alice.people.height IS 'Height in cm; don''t guess';" in text
    assert ("""\nCOMMENT ON COLUMN alice."Order Items"."Unit Price" IS 'Price, ''net''';"""
            in table_text(on, 'alice."Order Items"'))
    # Stored on the profile, the same.
    people.execute("select dbms_cloud_ai.set_attribute('P', 'comments', 'true')")
    assert messages_of(showprompt(people, "how tall")) == on


def test_constraints_and_case_sensitive_values(people, llm):
    make_profile(people, llm)
    off = showprompt(people, "gymnasts")
    assert "PRIMARY KEY" not in json.dumps(off) and "FOREIGN KEY" not in json.dumps(off)
    on = showprompt(people, "gymnasts", attributes='{"constraints": true}')
    gym = table_text(on, "alice.gymnast")
    assert "\n  PRIMARY KEY (id)," in gym
    assert "\n  FOREIGN KEY (id) REFERENCES alice.people (id)\n" in gym
    assert "\n  PRIMARY KEY (id)\n" in table_text(on, "alice.people")

    # case_sensitive_values changes the string-comparison rule, and only that line.
    insensitive = question(showprompt(people, "people from new york"))
    sensitive = question(showprompt(people, "people from new york",
                                    attributes='{"case_sensitive_values": true}'))
    assert insensitive != sensitive
    diff_a = set(insensitive.splitlines()) - set(sensitive.splitlines())
    diff_b = set(sensitive.splitlines()) - set(insensitive.splitlines())
    assert len(diff_a) == 1 and len(diff_b) == 1
    assert "UPPER()" in diff_a.pop() and "UPPER()" not in diff_b.pop()


def test_additional_instructions_are_sent(people, llm):
    make_profile(people, llm, additional_instructions="Ages are in years; round to 1 decimal.")
    llm.script(Answer('SELECT round(avg(p.age), 1) AS "Average Age" FROM alice.people p'))
    assert generate(people, "average age", action="runsql") \
        == '[\n  {\n    "Average Age" : 21.2\n  }\n]'
    msgs = sent(llm)
    assert "Ages are in years; round to 1 decimal." in question(msgs)
    assert question(msgs).index("Ages are in years") < question(msgs).index("Question: average age")
    # A per-call override replaces it.
    prompt = showprompt(people, "average age", attributes='{"additional_instructions": "Use SI."}')
    assert "Use SI." in question(prompt) and "Ages are in years" not in json.dumps(prompt)


def test_only_readable_objects_are_described(db, people, bob, llm):
    bob.execute("create table bob.secret_salaries (id int, salary numeric)")
    db.admin.execute("create table alice.admin_only (id int, payload text)")   # no grant
    make_profile(people, llm, object_list=[
        {"owner": "bob", "name": "secret_salaries"}, {"owner": "bob"},
        {"owner": "alice", "name": "admin_only"}, {"owner": "alice", "name": "people"}])
    prompt = showprompt(people, "what is in these tables")
    msgs = messages_of(prompt)
    assert described(msgs) == ["alice.people"]
    text = json.dumps(msgs)
    for hidden in ("secret_salaries", "salary", "admin_only", "payload"):
        assert hidden not in text, hidden
    # The note (never sent) lists the profile's own entries that gave nothing readable.
    note = note_of(prompt)
    assert note is not None and "role" not in note
    assert sorted(note["object_list_entries_not_found_or_not_readable"]) \
        == ["alice.admin_only", "bob.*", "bob.secret_salaries"]

    # Named in SQL anyway: refused by the object list, and by PostgreSQL without it.
    llm.script(Answer("SELECT a.payload FROM alice.admin_only a"))
    with raises("42501") as h:
        generate(people, "payloads", action="runsql")
    assert "alice.admin_only" in detail(h)
    llm.script(Answer("SELECT a.payload FROM alice.admin_only a"))
    with raises("42501"):
        generate(people, "payloads", action="runsql", attributes='{"enforce_object_list": false}')


def test_column_level_grant_describes_granted_columns_only(db, people, llm):
    db.admin.execute("create table alice.staff (id int primary key, name text, salary numeric, "
                     "boss int references alice.staff)")
    db.admin.execute("insert into alice.staff values (1, 'Ann', 9000, null), (2, 'Bo', 5000, 1)")
    db.admin.execute("grant select (id, name) on alice.staff to alice")
    make_profile(people, llm, object_list=[{"owner": "alice", "name": "staff"}])
    prompt = showprompt(people, "staff salaries", attributes='{"constraints": true}')
    text = table_text(prompt, "alice.staff")
    # value hints: of the granted columns only
    assert text == "CREATE TABLE alice.staff (\n  id integer NOT NULL,\n" \
                   "  name text,  -- values: 'Ann', 'Bo'\n  PRIMARY KEY (id)\n);"
    # The granted columns can be queried; the others are PostgreSQL's 42501.
    llm.script(Answer("SELECT s.name FROM alice.staff s ORDER BY s.id"))
    assert generate(people, "staff names", action="runsql") \
        == '[\n  {\n    "name" : "Ann"\n  },\n  {\n    "name" : "Bo"\n  }\n]'
    llm.script(Answer("SELECT s.salary FROM alice.staff s"))
    with raises("42501"):
        generate(people, "staff salaries", action="runsql")
    assert len(llm.requests) == 2                          # permission denied is not repaired


def test_oracle_style_object_list_names(people, sales, llm):
    make_profile(people, llm, object_list=[{"owner": "ALICE", "name": "PEOPLE"}])
    assert described(showprompt(people, "people")) == ["alice.people"]
    people.execute("""select dbms_cloud_ai.set_attribute('P', 'object_list',
                      '[{"owner": "SH", "name": "CUSTOMERS"}, {"owner": "Sh", "name": "Sales"}]')""")
    assert described(showprompt(people, "people")) == ["sh.customers", "sh.sales"]
    # An owner without a name is the whole schema.
    people.execute("""select dbms_cloud_ai.set_attribute('P', 'object_list', '[{"owner": "SH"}]')""")
    prompt = showprompt(people, "customers")
    assert described(prompt) == ["sh.countries", "sh.customers", "sh.products", "sh.sales"]
    assert "for example sh.countries" in question(prompt)


def test_no_object_list_means_the_current_schema(people, sales, llm):
    make_profile(people, llm)
    assert described(showprompt(people, "people")) == ["alice.gymnast", "alice.people"]
    people.execute("set search_path = sh, alice")
    assert described(showprompt(people, "people")) \
        == ["sh.countries", "sh.customers", "sh.products", "sh.sales"]
    # Unqualified names in the model's SQL resolve along the caller's search_path.
    llm.script(Answer('SELECT count(*) AS "Customer Count" FROM customers c'))
    assert generate(people, "how many customers do I have", action="runsql") \
        == '[\n  {\n    "Customer Count" : 28\n  }\n]'
    llm.script(Answer('SELECT count(*) AS "Customer Count" FROM customers c'))
    assert "FROM sh.customers" in generate(people, "how many customers", action="showsql")


# --- 4. dialects -------------------------------------------------------------------------------

DIALECTS = {
    "oracle": (
        'SELECT NVL(p."HOMETOWN", \'-\') AS "Town", p."NAME" FROM "ALICE"."PEOPLE" p '
        'WHERE p."AGE" > 19 ORDER BY p."AGE" DESC FETCH FIRST 2 ROWS ONLY',
        [{"Town": "Chicago", "name": "Michael Brown"}, {"Town": "New York", "name": "John Smith"}],
        ("NVL", '"ALICE"', '"PEOPLE"', "FETCH FIRST"), ("COALESCE(p.hometown", "alice.people",
                                                       "LIMIT 2")),
    "tsql": (
        "SELECT TOP 5 [name], [age] FROM [alice].[people] WHERE [hometown] <> 'Houston' "
        "ORDER BY [age]",
        [{"name": "Emma Johnson", "age": 20}, {"name": "William Kim", "age": 21},
         {"name": "John Smith", "age": 22}, {"name": "Michael Brown", "age": 24}],
        ("TOP", "["), ("alice.people", "LIMIT 5")),
    "mysql": (
        'SELECT `name` FROM `alice`.`people` WHERE `hometown` <> "Houston" '
        "ORDER BY `id` LIMIT 2, 5",
        [{"name": "Michael Brown"}, {"name": "William Kim"}],
        ("`", '"Houston"'), ("alice.people", "LIMIT 5", "OFFSET 2", "'Houston'")),
}


def test_other_dialects_run_as_postgresql(people, sales, llm):
    """The model answers Oracle, T-SQL or MySQL: runsql gives the right rows in one request,
    showsql shows PostgreSQL."""
    make_profile(people, llm, object_list=[{"owner": "ALICE"}, {"owner": "SH"}])
    for dialect, (answer, rows, absent, present) in DIALECTS.items():
        with case(dialect):
            llm.reset()
            llm.script(Answer(answer))
            assert json.loads(generate(people, "some people", action="runsql")) == rows
            assert len(llm.requests) == 1                 # translated, not repaired
            llm.script(Answer(answer))
            sql = generate(people, "some people", action="showsql")
            for word in absent:
                assert word not in sql, (word, sql)
            for word in present:
                assert word in sql, (word, sql)
            assert len(llm.requests) == 2

    # Reference 10.1: Oracle's own answer to "how many customers do I have" on SH.
    oracle = 'SELECT COUNT(c."CUST_ID") AS "Customer Count" FROM "SH"."CUSTOMERS" c'
    llm.script(Answer(oracle), Answer(oracle))
    assert generate(people, "how many customers do I have", action="runsql") \
        == '[\n  {\n    "Customer Count" : 28\n  }\n]'
    assert generate(people, "how many customers do I have", action="showsql") \
        == 'SELECT count(c.cust_id) AS "Customer Count"\nFROM sh.customers AS c'


# --- 5. repair ---------------------------------------------------------------------------------

def test_unknown_column_gets_one_repair_round(people, llm):
    make_profile(people, llm)
    bad = "SELECT p.nickname FROM alice.people p"
    llm.script(Answer(bad), Answer(PEOPLE_COUNT))
    assert generate(people, "how many people", action="runsql") == PEOPLE_COUNT_JSON
    assert len(llm.requests) == 2
    first, second = sent(llm, 0), sent(llm, 1)
    assert second[:len(first)] == first                  # the same prompt, continued
    assert second[len(first)] == {"role": "assistant", "content": bad}
    repair = second[-1]
    assert repair["role"] == "user" and len(second) == len(first) + 2
    assert "p.nickname" in repair["content"] and "42703" in repair["content"]


def test_showsql_of_sql_syntax_functions_is_sql_that_runs(people, llm):
    """EXTRACT(x FROM y) and POSITION(a IN b) are written in their SQL syntax (without the
    prefix they printed as extract('x', y), which PostgreSQL cannot parse, and showsql
    failed on a query the model wrote correctly); the shown text runs as it is."""
    make_profile(people, llm)
    llm.script(Answer("SELECT p.name, EXTRACT(year FROM now()) - p.age AS born, "
                      "position('o' IN p.name) AS o_at, trim(both ' ' FROM p.hometown) AS town "
                      "FROM alice.people p ORDER BY p.id"))
    sql = generate(people, "when was everyone born", action="showsql")
    assert len(llm.requests) == 1                       # accepted as written, no repair round
    assert "EXTRACT(YEAR FROM" in sql and "position('o' IN p.name)" in sql
    rows = people.execute(sql).fetchall()
    assert rows[0][0] == "John Smith" and rows[0][2] == 2


def test_the_repair_round_gets_postgresqls_hint_and_the_question_again(people, llm):
    """What a small model needs to fix a misspelt column (issue 17): PostgreSQL's own hint
    names the column it meant, and the question is repeated after the failed query."""
    make_profile(people, llm)
    llm.script(Answer("SELECT count(p.nam) FROM alice.people p"), Answer(PEOPLE_COUNT))
    assert generate(people, "how many people are there", action="runsql") == PEOPLE_COUNT_JSON
    repair = sent(llm, 1)[-1]["content"]
    assert "42703" in repair and 'p.name' in repair.split("p.nam)")[-1]   # the hint's column
    assert repair.rstrip().endswith("Question: how many people are there")


def test_example_aliases_in_the_rules_stay_valid_sql_when_copied_literally(people, llm):
    """A small model copied the rules' example alias AS "Customer Count" without its quotes
    (issue 17): every example alias in the prompt must parse as written, quoted or not."""
    make_profile(people, llm)
    [rules] = [m["content"] for m in showprompt(people, "how many people")
               if isinstance(m, dict) and m.get("role") == "user"]
    aliases = re.findall(r'\bAS\s+("[^"]*"|\w+)', rules)
    assert aliases, "the rules give an example alias"
    for alias in aliases:
        for written in (alias, alias.strip('"')):
            with case(written):
                pglast.parse_sql("select 1 as " + written)   # a syntax error fails the test


def test_showsql_is_repaired_from_the_plan(people, llm):
    """showsql does not run the query, but PostgreSQL plans it: an unknown column or a type
    error is found and sent back."""
    make_profile(people, llm, raise_on_invalid_sql=True,   # the error, with the last SQL
                 repair_rounds=1)
    llm.script(Answer("SELECT p.nickname FROM alice.people p"),
               Answer("SELECT p.name FROM alice.people p WHERE p.age + 'x' > 1"),
               Answer("unused"))
    with raises("LL005") as h:
        generate(people, "names", action="showsql")
    assert "p.age + 'x'" in detail(h)
    assert len(llm.requests) == 2
    assert "p.nickname" in sent(llm, 1)[-1]["content"]
    assert "42703" in sent(llm, 1)[-1]["content"]
    llm.reset()
    llm.script(Answer("SELECT p.name FROM alice.people p WHERE p.age + 'x' > 1"),
               Answer("SELECT p.name FROM alice.people p WHERE p.age > 21"))
    assert generate(people, "names", action="showsql") \
        == "SELECT p.name\nFROM alice.people AS p\nWHERE p.age > 21"
    assert "22P02" in sent(llm, 1)[-1]["content"]


def test_two_bad_answers_fail_with_the_last_sql(people, llm):
    make_profile(people, llm, raise_on_invalid_sql=True, repair_rounds=1)
    llm.script(Answer("SELECT p.nickname FROM alice.people p"),
               Answer("SELECT p.surname FROM alice.people p"),
               Answer(PEOPLE_COUNT), Answer(PEOPLE_COUNT))
    with raises("LL005") as h:
        generate(people, "how many people", action="runsql")
    assert "p.surname" in detail(h)
    assert len(llm.requests) == 2                         # bounded: repair_rounds
    # Not SQL at all, twice: the same.
    llm.reset()
    llm.script(Answer("I cannot answer that."), Answer("Sorry, no idea."))
    with raises("LL005"):
        generate(people, "how many people", action="runsql")
    assert len(llm.requests) == 2


REFUSED = {
    "delete": "DELETE FROM alice.people",
    "drop": "SELECT 1 AS x; DROP TABLE alice.people",
    "cte_dml": "WITH d AS (DELETE FROM alice.people RETURNING id) SELECT count(*) FROM d",
    "for_update": "SELECT p.id FROM alice.people p FOR UPDATE",
}


def test_refused_sql_is_not_repaired(people, llm):
    make_profile(people, llm)
    for kind, bad in REFUSED.items():
        with case(kind):
            llm.reset()
            llm.script(Answer(bad), Answer(PEOPLE_COUNT))
            with raises("42501") as h:
                generate(people, "how many people", action="runsql")
            assert bad in detail(h)
            assert len(llm.requests) == 1
    assert people.execute("select count(*) from alice.people").fetchone()[0] == 5


def test_forbidden_function_is_refused_not_repaired(people, llm):
    make_profile(people, llm)
    bad = "SELECT pg_sleep(5) AS s, p.name FROM alice.people p"
    llm.script(Answer(bad), Answer(PEOPLE_COUNT))
    # A built-in that exists but is not allowed is refused at once, not repaired.
    with raises("42501") as h:
        generate(people, "how many people", action="runsql")
    assert bad in detail(h)
    assert len(llm.requests) == 1


def test_unknown_names_are_mistakes_that_get_a_repair_round(people, llm):
    """A function or table that exists nowhere (another dialect's, a misspelling) is not a
    refusal: the model gets one repair round, even with enforce_object_list on."""
    make_profile(people, llm, object_list=[{"owner": "alice", "name": "people"}])
    for bad in ("SELECT count(*) AS n FROM alice.person p",
                "SELECT made_up_fn(p.name) AS n FROM alice.people p"):
        with case(bad):
            llm.reset()
            llm.script(Answer(bad), Answer(PEOPLE_COUNT))
            assert '"People Count" : 5' in generate(people, "how many people", action="runsql")
            assert len(llm.requests) == 2
            assert bad in llm.requests[1].json["messages"][-1]["content"]


def test_a_table_outside_the_search_path_without_its_schema_gets_a_repair_round(db, people, llm):
    """FROM pets, where pets exists only in a schema the caller's search_path does not
    reach, names nothing the caller could read that way: a small model's slip (it left out
    the schema), repaired, not refused (issue 17)."""
    db.admin.execute("create table bob.pets (id int)")
    make_profile(people, llm, object_list=[{"owner": "alice", "name": "people"}])
    llm.script(Answer("SELECT count(*) AS n FROM pets"), Answer(PEOPLE_COUNT))
    assert '"People Count" : 5' in generate(people, "how many people", action="runsql")
    assert len(llm.requests) == 2
    # Qualified, the same table is a refusal, as before.
    llm.reset()
    llm.script(Answer("SELECT count(*) AS n FROM bob.pets"), Answer(PEOPLE_COUNT))
    with raises("42501"):
        generate(people, "how many people", action="runsql")
    assert len(llm.requests) == 1


# --- 6. enforce_object_list --------------------------------------------------------------------

def test_enforce_object_list(people, llm):
    make_profile(people, llm, object_list=[{"owner": "alice", "name": "people"}])
    gym = 'SELECT count(*) AS "Gymnasts" FROM alice.gymnast g'
    llm.script(Answer(gym), Answer(PEOPLE_COUNT))
    with raises("42501") as h:
        generate(people, "how many gymnasts", action="runsql")
    assert "alice.gymnast" in detail(h)
    assert len(llm.requests) == 1
    llm.reset()
    llm.script(Answer(gym))
    assert generate(people, "how many gymnasts", action="runsql",
                    attributes='{"enforce_object_list": false}') \
        == '[\n  {\n    "Gymnasts" : 5\n  }\n]'
    people.execute("select dbms_cloud_ai.set_attribute('P', 'enforce_object_list', 'false')")
    llm.script(Answer(gym))
    assert "alice.gymnast" in generate(people, "how many gymnasts", action="showsql")


# --- 7. select_ai ------------------------------------------------------------------------------

def select_ai(conn, statement):
    return conn.execute("select dbms_cloud_ai.select_ai(%s)", (statement,)).fetchone()[0]


def test_select_ai_action_keyword(people, sales, llm):
    make_profile(people, llm)
    people.execute("select dbms_cloud_ai.set_profile('P')")
    for statement, q in (("SHOWSQL how many people", "how many people"),
                         ("showsql  how many people", "how many people"),
                         ("ShowSql how many people", "how many people")):
        llm.reset()
        llm.script(Answer(PEOPLE_COUNT))
        with case(statement):
            out = select_ai(people, statement)
            assert out.startswith("SELECT count(*) AS \"People Count\"")
            assert question(sent(llm)).endswith("\n\nQuestion: " + q)
    llm.reset()
    llm.script(Answer(PEOPLE_COUNT))
    assert select_ai(people, "How many people are there") == PEOPLE_COUNT_JSON
    assert question(sent(llm)).endswith("\n\nQuestion: How many people are there")
    llm.script(Answer(PEOPLE_COUNT))
    assert select_ai(people, "runsql how many people") == PEOPLE_COUNT_JSON
    assert question(sent(llm)).endswith("\n\nQuestion: how many people")
    prompt = json.loads(select_ai(people, "showprompt how many people"))
    assert question(prompt).endswith("\n\nQuestion: how many people")
    llm.reset()
    llm.script(Answer("8"))
    assert select_ai(people, "chat What is 4 + 4 ?") == "8"
    assert sent(llm) == [{"role": "user", "content": "What is 4 + 4 ?"}]
    # The caller's search_path decides the current schema, as for generate().
    people.execute("set search_path = sh")
    prompt = json.loads(select_ai(people, "showprompt customers"))
    assert described(prompt) == ["sh.countries", "sh.customers", "sh.products", "sh.sales"]


def test_select_ai_keyword_followed_by_a_newline(people, llm):
    """SELECT AI is free text: the action keyword may end at any white space."""
    make_profile(people, llm)
    people.execute("select dbms_cloud_ai.set_profile('P')")
    llm.script(Answer(PEOPLE_COUNT))
    # The action keyword may be followed by any whitespace.
    out = select_ai(people, "showsql\nhow many people")
    assert out == 'SELECT count(*) AS "People Count"\nFROM alice.people AS p'
    assert question(sent(llm)).endswith("\n\nQuestion: how many people")


def test_select_ai_errors(people, llm):
    make_profile(people, llm)
    with raises("55000"):
        select_ai(people, "how many people")
    people.execute("select dbms_cloud_ai.set_profile('P')")
    for statement in ("", "   ", None):
        with case(statement), raises("22023"):
            select_ai(people, statement)
    with raises("22023"):
        select_ai(people, "showsql")                       # an action and no prompt
    assert llm.requests == []


# --- 8. conversations --------------------------------------------------------------------------

def _prompts(conn, cid):
    return conn.execute("select prompt_action, prompt, prompt_response from "
                        "dbms_cloud_ai.user_cloud_ai_conversation_prompts "
                        "where conversation_id = %s order by created", (cid,)).fetchall()


def test_named_conversation_records_sql_and_sends_history(people, llm):
    make_profile(people, llm)
    cid = people.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    params = json.dumps({"conversation_id": cid})
    llm.script(Answer(PEOPLE_COUNT), TITLE)
    assert generate(people, "How many people", action="RUNSQL", params=params) == PEOPLE_COUNT_JSON
    assert len(llm.requests) == 2                         # the answer, then the title
    shown_sql = 'SELECT count(*) AS "People Count"\nFROM alice.people AS p'
    rows = _prompts(people, cid)
    assert rows == [("RUNSQL", "How many people", shown_sql)]
    title = people.execute("select conversation_title from dbms_cloud_ai.user_cloud_ai_conversations "
                           "where conversation_id = %s", (cid,)).fetchone()[0]
    assert title == "People"

    # showprompt: shows the history, records nothing.
    prompt = showprompt(people, "and how many of them are over 20", params=params)
    history = [{"role": "user", "content": "How many people"},
               {"role": "assistant", "content": shown_sql}]
    msgs = messages_of(prompt)
    assert msgs[-3:-1] == history
    assert len(llm.requests) == 2 and len(_prompts(people, cid)) == 1

    # The next NL2SQL turn carries the previous question and SQL.
    llm.script(Answer('SELECT count(*) AS "Over 20" FROM alice.people p WHERE p.age > 20'))
    assert generate(people, "and how many of them are over 20", action="runsql", params=params) \
        == '[\n  {\n    "Over 20" : 3\n  }\n]'
    assert len(llm.requests) == 3                         # titled already: no naming call
    assert sent(llm) == msgs
    rows = _prompts(people, cid)
    assert [r[0] for r in rows] == ["RUNSQL", "RUNSQL"]
    assert rows[1][2] == 'SELECT count(*) AS "Over 20"\nFROM alice.people AS p\nWHERE p.age > 20'

    # showsql is recorded too (with its SQL); then chat sees NL2SQL turns as history.
    llm.script(Answer("SELECT p.name FROM alice.people p"))
    shown = generate(people, "list their names", action="showsql", params=params)
    assert _prompts(people, cid)[-1] == ("SHOWSQL", "list their names", shown)
    llm.script(Answer("ok"))
    generate(people, "thanks", action="chat", params=params)
    assert sent(llm)[:2] == history
    assert len(_prompts(people, cid)) == 4

    # A refused turn leaves no trace.
    llm.script(Answer("DELETE FROM alice.people"))
    with raises("42501"):
        generate(people, "remove everyone", action="runsql", params=params)
    assert len(_prompts(people, cid)) == 4


# --- 9. large schemas --------------------------------------------------------------------------

BIG_TABLES = 1200


@pytest.fixture
def big(db, people):
    """Schema big: 1,200 small tables and one named after what the test asks about."""
    db.admin.execute("create schema big authorization alice")
    people.execute(f"""
        do $$
        begin
            for i in 1..{BIG_TABLES} loop
                execute pg_catalog.format(
                    'create table big.t%s (id int, qty int, created date)', i);
                if i % 150 = 0 then commit; end if;
            end loop;
        end $$""")
    people.execute("create table big.invoices (invoice_id int primary key, due_date date, "
                   "paid boolean, customer_ref int)")
    return people


def test_large_schema_is_cut_to_the_budget(big, llm):
    make_profile(big, llm, object_list=[{"owner": "big"}])
    big.execute("set dbms_cloud_ai.schema_context_tokens = 2000")
    prompt = showprompt(big, "how many invoices are overdue")
    assert llm.requests == []
    msgs = messages_of(prompt)
    texts = table_texts(msgs)
    assert 0 < len(texts) < BIG_TABLES
    assert sum(len(t) for t in texts) <= 2000 * 4
    assert "big.invoices" in described(msgs)
    note = note_of(prompt)
    assert note is not None and "role" not in note and "content" not in note
    assert note["reason"]
    omitted = note["omitted_tables"]
    assert len(omitted) + len(texts) == BIG_TABLES + 1
    assert set(omitted).isdisjoint(described(msgs))
    assert "big.invoices" not in omitted and "big.t1200" in omitted
    # The note is never sent: runsql's request is the messages alone.
    llm.script(Answer("SELECT count(*) AS n FROM big.invoices i WHERE NOT i.paid"))
    assert generate(big, "how many invoices are overdue", action="runsql") \
        == '[\n  {\n    "n" : 0\n  }\n]'
    assert sent(llm) == msgs
    # A larger budget describes more.
    big.execute("set dbms_cloud_ai.schema_context_tokens = 8000")
    more = table_texts(messages_of(showprompt(big, "how many invoices are overdue")))
    assert len(texts) < len(more) and sum(len(t) for t in more) <= 8000 * 4


def test_schema_context_tokens_must_be_valid(people, llm):
    make_profile(people, llm)
    for value in ("abc", "0", "50", "-5", "1000000000"):
        people.execute("select set_config('dbms_cloud_ai.schema_context_tokens', %s, false)",
                       (value,))
        with case(value), raises("22023"):
            showprompt(people, "people")
    people.execute("set dbms_cloud_ai.schema_context_tokens = 100")   # valid, but too small
    people.execute("alter table alice.people add column " +
                   ", add column ".join(f"long_column_name_{i} text" for i in range(40)))
    with raises("22023"):
        showprompt(people, "people", attributes='{"object_list": [{"owner": "alice", "name": "people"}]}')
    assert described(showprompt(people, "gymnasts")) == ["alice.gymnast"]   # what fits
    assert llm.requests == []


def test_automated_mode_sends_only_relevant_tables(people, sales, llm):
    make_profile(people, llm, object_list=[{"owner": "alice"}, {"owner": "sh"}],
                 object_list_mode="automated")
    prompt = showprompt(people, "how tall are the people")
    assert described(prompt) == ["alice.people"]
    note = note_of(prompt)
    assert sorted(note["omitted_tables"]) == ["alice.gymnast", "sh.countries", "sh.customers",
                                              "sh.products", "sh.sales"]
    assert note["reason"]
    assert question(prompt).endswith("Question: how tall are the people")
    # A table's foreign keys bring their targets along.
    prompt = showprompt(people, "total points of each gymnast", attributes='{"constraints": true}')
    assert described(prompt) == ["alice.gymnast", "alice.people"]
    # Mode all (the default) sends everything that fits.
    prompt = showprompt(people, "how tall are the people",
                        attributes='{"object_list_mode": "all"}')
    assert len(described(prompt)) == 6 and note_of(prompt) is None


# --- 10. the catalog cache follows the catalog --------------------------------------------------

def test_catalog_changes_reach_the_next_prompt(db, people, llm):
    make_profile(people, llm, comments=True)
    first = showprompt(people, "people")
    assert showprompt(people, "people") == first
    assert "COMMENT ON" not in json.dumps(first)

    people.execute("comment on column alice.people.hometown is 'City of birth'")
    p = showprompt(people, "people")
    assert "COMMENT ON COLUMN alice.people.hometown IS 'City of birth';" \
        in table_text(p, "alice.people")
    people.execute("comment on column alice.people.hometown is 'Where they grew up'")
    p = showprompt(people, "people")
    assert "'Where they grew up'" in table_text(p, "alice.people")
    assert "City of birth" not in json.dumps(p)

    people.execute("alter table alice.people add column shoe_size int")
    assert "\n  shoe_size integer" in table_text(showprompt(people, "people"), "alice.people")
    people.execute("alter table alice.people rename column shoe_size to foot_size")
    text = table_text(showprompt(people, "people"), "alice.people")
    assert "foot_size" in text and "shoe_size" not in text

    db.admin.execute("create table alice.coaches (id int, name text)")
    assert "alice.coaches" not in described(showprompt(people, "people"))
    db.admin.execute("grant select on alice.coaches to alice")
    assert "alice.coaches" in described(showprompt(people, "people"))
    db.admin.execute("revoke select on alice.coaches from alice")
    assert "alice.coaches" not in described(showprompt(people, "people"))
    db.admin.execute("grant select (id) on alice.coaches to alice")
    assert table_text(showprompt(people, "people"), "alice.coaches") \
        == "CREATE TABLE alice.coaches (\n  id integer\n);"
    db.admin.execute("revoke select (id) on alice.coaches from alice")
    assert "alice.coaches" not in described(showprompt(people, "people"))

    people.execute("drop table alice.gymnast")
    assert described(showprompt(people, "people")) == ["alice.people"]


def test_catalog_cache_is_per_role(db, llm):
    """One backend, two roles (SET ROLE from a superuser session): each gets the
    description of what it may read, never the other's cached one."""
    db.admin.execute("create schema shared")
    db.admin.execute("create table shared.a (id int, secret text)")
    db.admin.execute("grant usage on schema shared to alice, bob")
    db.admin.execute("grant select on shared.a to alice")
    db.admin.execute("grant select (id) on shared.a to bob")
    su = db.connect("postgres")
    for role in ("alice", "bob"):
        su.execute(f"set role {role}")
        make_profile(su, llm, name="PS", credential="CS", object_list=[{"owner": "shared"}])
        su.execute("reset role")
    expected = {"alice": "CREATE TABLE shared.a (\n  id integer,\n  secret text\n);",
                "bob": "CREATE TABLE shared.a (\n  id integer\n);"}
    for role in ("alice", "bob", "alice", "bob"):
        with case(role):
            su.execute(f"set role {role}")
            assert table_text(showprompt(su, "a", profile="PS"), "shared.a") == expected[role]
            su.execute("reset role")


def test_privilege_changes_on_a_referenced_table_reach_the_next_prompt(db, people, llm):
    """A foreign key is described only when its target is readable: granting or revoking
    SELECT on the target (outside the object list) must show in the next prompt."""
    db.admin.execute("create table alice.owners (id int primary key, name text)")
    db.admin.execute("create table alice.pets (id int primary key, "
                     "owner_id int references alice.owners)")
    db.admin.execute("grant select on alice.pets to alice")
    make_profile(people, llm, object_list=[{"owner": "alice", "name": "pets"}], constraints=True)
    fk = "FOREIGN KEY (owner_id) REFERENCES alice.owners (id)"
    assert fk not in table_text(showprompt(people, "pets"), "alice.pets")
    db.admin.execute("grant select on alice.owners to alice")
    # A new session sees the grant at once ...
    fresh = db.connect("alice")
    assert fk in table_text(showprompt(fresh, "pets"), "alice.pets")
    # ... and so does a session that cached the description: the fingerprint covers
    # the tables foreign keys point to.
    assert fk in table_text(showprompt(people, "pets"), "alice.pets")
