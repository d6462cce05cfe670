"""Text actions: SUMMARIZE and TRANSLATE over content of any length.

The entry point is ``actions``; ``languages`` parses TRANSLATE's language
names and codes.  Nothing is imported here: a chat session never loads this
subpackage (lazy.py).
"""
