"""resolve.oids_in_tree: the function and operator OIDs of a pg_node_tree text."""

from __future__ import annotations

from dbms_cloud_ai.nl2sql import resolve

# Pieces of a real pg_rewrite.ev_action (PostgreSQL 15): lower(c.relname) aliased
# " :funcid 99999 ", a row comparison, a window count, an equality, GROUP/ORDER BY.
TREE = ('{QUERY :commandType 1 :targetList ({TARGETENTRY :expr {FUNCEXPR :funcid 870 '
        ':funcresulttype 25 :args ({FUNCEXPR :funcid 406 :args ({VAR :varno 1})})} '
        ':resname \\ :funcid\\ 99999\\  :ressortgroupref 1} {TARGETENTRY :expr {ROWCOMPARE '
        ':rctype 1 :opnos (o 97 97) :opfamilies (o 1976 1976)}} {TARGETENTRY :expr '
        '{WINDOWFUNC :winfnoid 2803}} {TARGETENTRY :expr {OPEXPR :opno 93 :opfuncid 62}}) '
        ':groupClause ({SORTGROUPCLAUSE :tleSortGroupRef 1 :eqop 98 :sortop 664}) '
        ':colnames ("\\ :funcid\\ 99999\\ " "r")}')


def test_every_function_and_operator_field_is_read():
    funcs, ops = resolve.oids_in_tree(TREE)
    assert funcs == {870, 406, 2803}
    assert ops == {97, 93, 98, 664}


def test_a_name_cannot_forge_or_hide_a_field():
    funcs, _ = resolve.oids_in_tree(TREE)
    assert 99999 not in funcs          # escaped blanks: an alias is not a field


def test_empty_and_missing_trees():
    assert resolve.oids_in_tree(None) == (set(), set())
    assert resolve.oids_in_tree("") == (set(), set())


def test_the_view_body_keeps_the_query_whole():
    body = resolve.view_body("SELECT 1 AS a, 2 AS a")
    assert body.endswith("from (SELECT 1 AS a, 2 AS a) q")
    assert body.startswith("select coalesce(")
