"""Select AI Agent (Oracle's DBMS_CLOUD_AI_AGENT): tools, tasks, agents and teams.

Running them: run.py is the entry point (RUN_TEAM, and the session's team for
``select_ai('agent ...')``); team.py reads what a run needs; tools.py runs one
tool (RUN_TOOL, and the tool calls of a run); history.py writes the run history.
"""
