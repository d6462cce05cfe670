"""Select AI Agent (Oracle's DBMS_CLOUD_AI_AGENT): tools, tasks, agents and teams.

``catalog.py`` is the entry point of the catalog: create, drop, enable, disable,
set_attribute(s), and ``load``/``team_plan`` for the code that runs teams.
``attributes.py`` holds each kind's attributes (Oracle's names and defaults)
and their checks; ``references.py`` what a tool or agent may name (functions,
profiles); ``sharing.py`` grant_team_access / revoke_team_access;
``definitions.py`` describe_tool, describe_team, list_tools, get_definition,
export_team and import_team.

Running them: run.py is the entry point (RUN_TEAM, and the session's team for
``select_ai('agent ...')``); team.py reads what a run needs; tools.py runs one
tool (RUN_TOOL, and the tool calls of a run); history.py writes the run history.
Nothing is imported here.
"""
