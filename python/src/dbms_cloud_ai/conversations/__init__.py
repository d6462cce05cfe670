"""Conversations: the history a turn sends and records.

The entry point is ``store`` (named and session conversations, their prompts);
``summaries`` folds what falls out of a conversation's window into a running
summary.  Nothing is imported here.
"""
