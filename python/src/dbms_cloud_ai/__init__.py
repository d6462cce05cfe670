"""dbms_cloud_ai: Oracle Select AI (DBMS_CLOUD_AI) for PostgreSQL, the Python side.

Everything the extension's PL/Python functions do lives here; each SQL function
body calls exactly one function of ``sqlapi``.  ``plpy`` is always passed in,
never imported, so the package can be loaded and unit-tested outside the server.
"""

__version__ = "0.9.0"
