"""Deterministic repairs of a model's query (nl2sql/fixes.py, issue 29): no server needed.

Each repair must change exactly what the catalog settles and nothing else; when it
does not settle it (two candidates, an opaque subquery), the query is left alone.
"""

from __future__ import annotations

import pytest
from dbms_cloud_ai.nl2sql import fixes, schema_context, sqlguard


def _table(schema, name, columns):
    cols = tuple(schema_context.Column(c, c, "text", False, None) for c in columns)
    return schema_context.Table(schema, name, f"{schema}.{name}", "table", None, cols, (), (), ())


CATALOG = schema_context.Catalog([
    _table("cs", "singer", ["singer_id", "name", "country", "age"]),
    _table("cs", "concert", ["concert_id", "concert_name", "year", "stadium_id"]),
    _table("cs", "singer_in_concert", ["concert_id", "singer_id"]),
    _table("cs", "stadium", ["stadium_id", "name", "capacity"]),
], "cs", [])


def checked(sql):
    """As the model's SQL reaches fixes: accepted, relations qualified."""
    return sqlguard.check(sql, allowed_objects=CATALOG.allowed(), search_path=["public"]).sql


def test_swapped_alias_is_moved_to_the_one_relation_having_the_column():
    sql = checked("SELECT t1.name FROM singer_in_concert AS t2 JOIN singer AS t1 "
                  "ON t1.singer_id = t2.singer_id WHERE t2.country = 'France'")
    fixed = fixes.repair(sql, CATALOG, "42703")
    assert "WHERE t1.country = 'France'" in fixed
    assert fixed.startswith("SELECT t1.name FROM cs.singer_in_concert AS t2")
    sqlguard.check(fixed, allowed_objects=CATALOG.allowed())     # still a checkable query


def test_no_repair_when_two_relations_have_the_column_or_one_is_opaque():
    two = checked("SELECT t3.name FROM singer AS t1 JOIN stadium AS t2 ON true "
                  "JOIN concert AS t3 ON true")
    assert fixes.repair(two, CATALOG, "42703") is None            # singer and stadium
    opaque = checked("SELECT t2.country FROM concert AS t2 "
                     "JOIN (SELECT * FROM singer) AS s ON true")
    assert fixes.repair(opaque, CATALOG, "42703") is None         # s.* is not known
    nowhere = checked("SELECT t1.height FROM singer AS t1")
    assert fixes.repair(nowhere, CATALOG, "42703") is None


def test_a_subquery_sees_its_own_from_items_first():
    sql = checked("SELECT s.name FROM singer AS s WHERE s.singer_id IN "
                  "(SELECT c.singer_id FROM singer_in_concert AS c JOIN concert AS k "
                  "ON k.concert_id = c.concert_id WHERE c.year = 2014)")
    fixed = fixes.repair(sql, CATALOG, "42703")
    assert "WHERE k.year = 2014" in fixed and "SELECT s.name" in fixed


def test_a_table_named_where_it_has_an_alias():
    sql = checked("SELECT singer.name FROM singer AS s WHERE singer.age > 30")
    fixed = fixes.repair(sql, CATALOG, "42P01")
    assert fixed == "SELECT s.name FROM cs.singer AS s WHERE s.age > 30"
    three = checked("SELECT cs.singer.name FROM singer AS s")
    assert fixes.repair(three, CATALOG, "42P01") == "SELECT s.name FROM cs.singer AS s"


def test_group_by_gets_the_columns_it_left_out():
    sql = checked("SELECT s.name, count(*) FROM singer AS s JOIN singer_in_concert AS c "
                  "ON c.singer_id = s.singer_id GROUP BY s.singer_id ORDER BY count(*) DESC")
    fixed = fixes.repair(sql, CATALOG, "42803")
    assert "GROUP BY s.singer_id, s.name ORDER BY" in fixed
    # aggregates, output aliases and positional GROUP BY are not touched
    alias = checked("SELECT country, count(*) AS n FROM singer GROUP BY country ORDER BY n")
    assert fixes.repair(alias, CATALOG, "42803") is None
    positional = checked("SELECT name, country FROM singer GROUP BY 2")
    assert fixes.repair(positional, CATALOG, "42803") is None


def test_other_errors_are_not_repaired():
    sql = checked("SELECT t2.name FROM singer AS t1 JOIN singer_in_concert AS t2 ON true")
    assert fixes.repair(sql, CATALOG, "42883") is None
    assert fixes.repair("not sql at all", CATALOG, "42703") is None


VALUES = {("cs", "singer"): {"country": ("France", "Netherlands", "United States")}}


@pytest.mark.parametrize("sql,expected", [
    ("SELECT name FROM singer WHERE country = 'france'", "country = 'France'"),
    ("SELECT name FROM singer AS s WHERE 'NETHERLANDS' <> s.country", "'Netherlands' <> s.country"),
    ("SELECT name FROM singer WHERE country IN ('france', 'united states')",
     "country IN ('France', 'United States')"),
])
def test_literals_are_spelt_as_the_column_stores_them(sql, expected):
    fixed, note = fixes.polish(checked(sql), CATALOG, VALUES, "q")
    assert expected in fixed and note is None
    assert fixes.polish(checked(sql), CATALOG, VALUES, "q", case_sensitive=True) == (None, None)


@pytest.mark.parametrize("sql", [
    "SELECT name FROM singer WHERE country = 'France'",          # already stored so
    "SELECT name FROM singer WHERE country = 'Spain'",           # no value matches
    "SELECT name FROM singer WHERE name = 'france'",             # no hint for that column
    "SELECT name FROM singer WHERE country LIKE 'fr%'",          # not an equality
    "SELECT s.name FROM singer AS s JOIN stadium AS t ON true WHERE name = 'x'",
])
def test_literals_left_alone_when_nothing_is_settled(sql):
    assert fixes.polish(checked(sql), CATALOG, VALUES, "q")[0] is None


def test_literal_case_with_two_spellings_stored_is_left_alone():
    values = {("cs", "singer"): {"country": ("FRANCE", "France")}}
    sql = checked("SELECT name FROM singer WHERE country = 'france'")
    assert fixes.polish(sql, CATALOG, values, "q")[0] is None


def test_context_names_the_columns_read_and_where_a_missing_one_is():
    sql = checked("SELECT s.name FROM singer AS s WHERE s.capacity > 10")
    text = fixes.context(sql, CATALOG)
    assert "- cs.singer: singer_id, name, country, age" in text
    assert text.endswith("Column capacity is a column of: cs.stadium")
    assert "cs.concert" not in text
    unknown = fixes.context("SELECT * FROM concert_singer", CATALOG)
    assert unknown == ("There is no table concert_singer that you may use.\n"
                       "The tables you may use: cs.singer, cs.concert, cs.singer_in_concert, "
                       "cs.stadium")
    assert fixes.context("SELEC nothing", CATALOG).startswith("The tables you may use: ")


def test_context_gives_the_key_that_joins_a_missing_column():
    sql = sqlguard.check("SELECT m.name FROM musicians AS m WHERE m.genre = 'rock'",
                         allowed_objects=FESTIVAL.allowed()).sql
    assert fixes.context(sql, FESTIVAL).splitlines()[-1] == \
        "Column genre is a column of: f.performers"
    sql = sqlguard.check("SELECT m.name FROM lineups AS l JOIN musicians AS m "
                         "ON m.id = l.musician_id WHERE l.genre = 'rock'",
                         allowed_objects=FESTIVAL.allowed()).sql
    assert fixes.context(sql, FESTIVAL).splitlines()[-1] == \
        "Column genre is a column of: f.performers (join on f.performers.id = f.lineups.performer_id)"
    assert "No table has a column height." in fixes.context(
        checked("SELECT height FROM singer"), CATALOG)


def _linked(schema, name, columns, keys):
    """A table with single-column foreign keys: keys = {column: (table, its column)}."""
    t = _table(schema, name, columns)
    fks = tuple(((col,), schema, ref, f"{schema}.{ref}", (rcol,)) for col, (ref, rcol) in keys.items())
    return schema_context.Table(t.schema, t.name, t.qualified, t.kind, None, t.columns, (), (), fks)


FESTIVAL = schema_context.Catalog([
    _table("f", "musicians", ["id", "name", "instrument"]),
    _table("f", "performers", ["id", "name", "genre"]),
    _linked("f", "lineups", ["performer_id", "musician_id"],
            {"performer_id": ("performers", "id"), "musician_id": ("musicians", "id")}),
    _table("f", "stages", ["id", "name"]),
    _linked("f", "performances", ["id", "performer_id", "stage_id"],
            {"performer_id": ("performers", "id"), "stage_id": ("stages", "id")}),
], "f", [])


def _repaired(sql, catalog=FESTIVAL, state="42703"):
    """Repairs applied until none applies, each result checked again."""
    sql = sqlguard.check(sql, allowed_objects=catalog.allowed()).sql
    while (fixed := fixes.repair(sql, catalog, state)) is not None:
        sql = sqlguard.check(fixed, allowed_objects=catalog.allowed()).sql
    return sql


def test_a_link_table_is_joined_in_on_its_foreign_key():
    fixed = _repaired("SELECT DISTINCT t1.name FROM musicians AS t1 JOIN performers AS t2 "
                      "ON t1.id = t2.musician_id WHERE t2.genre = 'rock'")
    assert fixed == ("SELECT DISTINCT t1.name FROM f.musicians AS t1 INNER JOIN "
                     "(f.lineups AS l INNER JOIN f.performers AS t2 ON l.performer_id = t2.id) "
                     "ON t1.id = l.musician_id WHERE t2.genre = 'rock'")


def test_a_column_of_a_linked_table_joins_it_in():
    fixed = _repaired("SELECT p.name, s.name FROM performances AS p JOIN stages AS s "
                      "ON s.id = p.stage_id")
    # not s.name: the select list names that already (two names are asked for)
    assert fixed == ("SELECT p2.name, s.name FROM f.performers AS p2 INNER JOIN "
                     "f.performances AS p ON p2.id = p.performer_id INNER JOIN f.stages AS s "
                     "ON s.id = p.stage_id")


def test_no_join_is_guessed_when_two_tables_could_be_meant():
    # performer_id is in lineups and in performances, both linked to performers
    sql = ("SELECT t2.name FROM performers AS t2 WHERE t2.performer_id = 3")
    assert _repaired(sql) == "SELECT t2.name FROM f.performers AS t2 WHERE t2.performer_id = 3"
    # nothing links musicians to stages
    assert "stages" not in _repaired("SELECT m.name FROM musicians AS m WHERE m.stage_id = 1")


def test_an_alias_the_query_never_gave():
    sql = checked("SELECT t2.name FROM singer AS t1 JOIN singer_in_concert AS t3 "
                  "ON t1.singer_id = t3.singer_id")
    assert fixes.repair(sql, CATALOG, "42P01").startswith("SELECT t1.name FROM")
    # a table of the catalog the query did not join: a missing join, left to the model
    sql = checked("SELECT stadium.name FROM singer AS t1")
    assert fixes.repair(sql, CATALOG, "42P01") is None


AIRLINES = schema_context.Catalog([
    _table("aviation", "airlines", ["id", "name", "alliance", "country"]),
    _table("aviation", "routes", ["id", "airline_id", "distance_km"]),
], "aviation", [])


@pytest.mark.parametrize("sql,expected", [
    ("SELECT DISTINCT t1.name FROM aviation.airlines AS t1 JOIN aviation.alliances AS t2 "
     "ON t1.alliance = t2.name WHERE t2.name = 'OneGlobe'",
     "SELECT DISTINCT t1.name FROM aviation.airlines AS t1 WHERE t1.alliance = 'OneGlobe'"),
    # the model's text need not qualify the table; a column of the same name is read as such,
    # one compared with a value is the looked-up value
    ("SELECT T1.name, T2.country FROM airlines AS T1 JOIN aviation.alliance AS T2 "
     "ON T1.alliance = T2.id WHERE T2.label = 'SkyWay'",
     "SELECT t1.name, t1.country FROM airlines AS t1 WHERE t1.alliance = 'SkyWay'"),
    ("SELECT r.id FROM routes AS r JOIN carriers AS c ON c.code = r.airline_id "
     "JOIN aviation.airlines AS a ON a.id = r.airline_id WHERE c.name = 'x'",
     "SELECT r.id FROM routes AS r INNER JOIN aviation.airlines AS a ON a.id = r.airline_id "
     "WHERE r.airline_id = 'x'"),
])
def test_an_invented_lookup_table_is_dropped(sql, expected):
    assert fixes.invented(sql, AIRLINES) == expected


@pytest.mark.parametrize("sql", [
    "SELECT t1.name FROM aviation.airlines AS t1, aviation.alliances AS t2 WHERE t2.x = 1",
    "SELECT t1.name FROM aviation.airlines AS t1 JOIN aviation.alliances AS t2 "
    "ON t1.alliance = t2.name AND t2.active",
    "SELECT t2.name FROM aviation.alliances AS t2",
    "SELECT t1.name FROM aviation.airlines AS t1 JOIN aviation.airlines AS t2 ON t1.id = t2.id",
])
def test_no_invented_table_dropped_unless_settled(sql):
    assert fixes.invented(sql, AIRLINES) is None


def test_a_schema_qualified_column_of_a_linked_table():
    catalog = schema_context.Catalog([
        _table("sh", "countries", ["country_id", "country_name"]),
        _linked("sh", "customers", ["cust_id", "country_id"], {"country_id": ("countries", "country_id")}),
    ], "sh", [])
    fixed = _repaired("SELECT count(*) FROM sh.customers WHERE sh.customers.country_name = 'Germany'",
                      catalog)
    assert fixed == ("SELECT pg_catalog.count(*) FROM sh.countries AS c INNER JOIN sh.customers "
                     "ON c.country_id = customers.country_id WHERE c.country_name = 'Germany'")


def test_a_value_of_another_column_is_noted_not_repaired():
    values = {("cs", "singer"): {"country": ("France", "Netherlands")},
              ("cs", "stadium"): {"name": ("Glebe Park", "Somerset Park")}}
    sql = checked("SELECT s.name FROM singer AS s WHERE s.country = 'somerset park'")
    assert fixes.polish(sql, CATALOG, values, "q", doubt=True) == \
        (None, "'somerset park' is not a value of s.country; it is a value of cs.stadium.name")
    assert fixes.polish(sql, CATALOG, values, "q") == (None, None)     # no doubt asked
    for fine in ("SELECT name FROM singer WHERE country = 'france'",      # its own, any case
                 "SELECT name FROM singer WHERE country = 'Peru'",        # nobody's
                 "SELECT name FROM singer WHERE name = 'Glebe Park'"):    # values not known
        assert fixes.polish(checked(fine), CATALOG, values, "q", doubt=True)[1] is None


def test_a_column_two_keys_away_is_joined_through_the_table_between():
    catalog = schema_context.Catalog([
        _table("a", "airlines", ["id", "name"]),
        _linked("a", "routes", ["id", "airline_id"], {"airline_id": ("airlines", "id")}),
        _linked("a", "fares", ["id", "route_id", "class"], {"route_id": ("routes", "id")}),
    ], "a", [])
    fixed = _repaired("SELECT DISTINCT name FROM a.airlines WHERE class = 'business'", catalog)
    assert fixed == ("SELECT DISTINCT name FROM a.fares AS f INNER JOIN (a.routes AS r "
                     "INNER JOIN a.airlines ON r.airline_id = airlines.id) ON f.route_id = r.id "
                     "WHERE f.class = 'business'")


def test_returned_columns_keep_their_case():
    sql = checked("SELECT DISTINCT lower(s.name), upper(country) AS c, lower(name) || 'x' AS y "
                  "FROM singer AS s WHERE upper(s.country) = upper('france')")
    assert fixes.polish(sql, CATALOG, {}, "Which singers are French?")[0] == (
        "SELECT DISTINCT s.name AS name, country AS c, pg_catalog.lower(name) || 'x' AS y "
        "FROM cs.singer AS s WHERE pg_catalog.upper(s.country) = pg_catalog.upper('france')")
    assert fixes.polish(sql, CATALOG, {}, "Their names in upper case?") == (None, None)
    assert fixes.polish(checked("SELECT name FROM singer"), CATALOG, {}, "names") == (None, None)


BAND_VALUES = {("f", "performers"): {"name": ("Night Owls", "The Velvet Tides")},
               ("f", "musicians"): {"name": ("Ana", "Bo", "Cy")},
               ("f", "stages"): {"name": ("Harbour Deck", "Main Stage")}}


def test_a_value_of_another_column_moves_the_condition_there():
    # the table that holds it is in the FROM clause
    sql = checked("SELECT s.name FROM singer AS s JOIN stadium AS t ON true "
                  "WHERE s.country = 'glebe park'")
    values = {("cs", "singer"): {"country": ("France", "Netherlands")},
              ("cs", "stadium"): {"name": ("Glebe Park", "Somerset Park")}}
    assert fixes.polish(sql, CATALOG, values, "q")[0].endswith("WHERE t.name = 'Glebe Park'")
    # joined in through the link table, two keys away
    sql = sqlguard.check("SELECT name FROM f.musicians WHERE name = 'The Velvet Tides'",
                         allowed_objects=FESTIVAL.allowed()).sql
    # (the bare name it returns is musicians': performers has a name too)
    assert fixes.polish(sql, FESTIVAL, BAND_VALUES, "q")[0] == (
        "SELECT musicians.name FROM f.performers AS p INNER JOIN (f.lineups AS l INNER JOIN "
        "f.musicians ON l.musician_id = musicians.id) ON p.id = l.performer_id "
        "WHERE p.name = 'The Velvet Tides'")


@pytest.mark.parametrize("select, moved", [
    # * is the columns of the tables the query had, not of those joined in
    ("SELECT * FROM f.musicians AS m WHERE name = 'The Velvet Tides'",
     "SELECT m.* FROM f.performers AS p"),
    # an ORDER BY name of an output column keeps sorting by that column
    ("SELECT upper(instrument) AS name FROM f.musicians WHERE name = 'The Velvet Tides' "
     "ORDER BY name", "ORDER BY name"),
    # a bare column of the query's table that the joined tables also have is qualified, in a
    # subquery that reads it from outside too; one only the query's table has is left alone
    ("SELECT instrument FROM f.musicians WHERE name = 'The Velvet Tides' AND id IN "
     "(SELECT musician_id FROM f.lineups WHERE name > '')",
     "AND musicians.id IN (SELECT musician_id FROM f.lineups WHERE musicians.name > '')"),
    ("SELECT instrument FROM f.musicians WHERE name = 'The Velvet Tides'",
     "SELECT instrument FROM"),
])
def test_a_moved_condition_leaves_every_other_column_where_it_was(select, moved):
    sql = sqlguard.check(select, allowed_objects=FESTIVAL.allowed()).sql
    fixed = fixes.polish(sql, FESTIVAL, BAND_VALUES, "q")[0]
    assert moved in fixed and "WHERE p.name = 'The Velvet Tides'" in fixed


@pytest.mark.parametrize("where", [
    "name <> 'The Velvet Tides'",            # not an equality
    "name = 'Nobody'",                        # nobody's value
    "name = 'Ana'",                           # its own
    "name IN ('The Velvet Tides', 'Ana')",    # not all of them elsewhere
])
def test_a_condition_stays_where_it_is_unless_settled(where):
    sql = sqlguard.check(f"SELECT name FROM f.musicians WHERE {where}",
                         allowed_objects=FESTIVAL.allowed()).sql
    assert fixes.polish(sql, FESTIVAL, BAND_VALUES, "q")[0] is None


SANG_AT = ("FROM singer AS s JOIN singer_in_concert AS sc ON s.singer_id = sc.singer_id "
           "JOIN concert AS c ON c.concert_id = sc.concert_id ")
BOTH = "Which singers sang at both Auditions and Home Visits?"
GROUPED = ("WHERE c.concert_name IN ('Auditions', 'Home Visits') GROUP BY s.name "
           "HAVING count(DISTINCT c.concert_name) = 2")


@pytest.mark.parametrize("where", [
    "WHERE c.concert_name IN ('Auditions', 'Home Visits')",            # either
    "WHERE c.concert_name = 'Auditions' AND concert_name = 'Home Visits'",  # never
])
def test_both_values_asked_for_are_both_required(where):
    fixed = fixes.polish(checked("SELECT DISTINCT s.name " + SANG_AT + where), CATALOG, {},
                         BOTH)[0]
    assert fixed.startswith("SELECT s.name FROM cs.singer AS s") and fixed.endswith(GROUPED)
    sqlguard.check(fixed, allowed_objects=CATALOG.allowed())


@pytest.mark.parametrize("sql, question", [
    # the question does not say both, or does not name both values
    ("SELECT s.name " + SANG_AT + "WHERE c.concert_name IN ('Auditions', 'Home Visits')",
     "Which singers sang at Auditions or Home Visits?"),
    ("SELECT s.name " + SANG_AT + "WHERE c.concert_name IN ('Auditions', 'Home Visits')",
     "Which singers sang at both concerts?"),
    # a column of the compared table is returned; one table: a singer has one country
    ("SELECT s.name, c.year " + SANG_AT + "WHERE c.concert_name IN ('Auditions', 'Home Visits')",
     BOTH),
    ("SELECT name FROM singer WHERE country IN ('France', 'Netherlands')",
     "List the singers from both France and Netherlands."),
    # already grouped, an expression returned, three values
    ("SELECT s.name, count(*) " + SANG_AT + "WHERE c.concert_name IN ('Auditions', "
     "'Home Visits') GROUP BY s.name", BOTH),
    ("SELECT upper(s.name) " + SANG_AT + "WHERE c.concert_name IN ('Auditions', 'Home Visits')",
     "Which singers sang at both Auditions and Home Visits? In upper case."),
    ("SELECT s.name " + SANG_AT + "WHERE c.concert_name IN ('Auditions', 'Home Visits', 'X')",
     BOTH + " And X?"),
])
def test_both_is_left_alone_unless_settled(sql, question):
    assert fixes.polish(checked(sql), CATALOG, {}, question)[0] is None
