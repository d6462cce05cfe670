"""Text actions: SUMMARIZE and TRANSLATE over content of any length.

The entry point is ``actions``; ``chunks`` cuts long content to the model's
window and ``documents`` fetches a location_uri's text (vector indexes use
both); ``languages`` parses TRANSLATE's language names and codes.  Nothing is
imported here: a chat session never loads this subpackage (lazy.py).
"""
