"""Long-term memory: facts about an end user, kept across conversations.

The entry point is ``recall`` (recall at answer time, the search_memories tool,
deletion, erasure); ``identity`` says whose memories a session reads,
``jobs`` promotes idle conversations into memories (loaded only by a turn or
a job that needs it).  Nothing is imported here.
"""
