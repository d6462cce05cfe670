"""The text of a document at an http or https URL: SUMMARIZE's location_uri
and the URL sources of vector indexes (vector_indexes/sources.py).

One GET, allowed by the host ACL before anything is sent, a credential (HTTP
basic) only over https, one deadline, bounded retries and size, no redirects;
only text types are read, HTML as its readable text.
"""

from __future__ import annotations

import base64
import html.parser
import re
from urllib.parse import urlsplit

import httpx

from .. import acl, attributes, credentials, db, names
from ..errors import FeatureNotSupported, InvalidParameter
from ..model import http, timing

_TEXT_TYPES = re.compile(r"(text/[\w.+-]+|application/([\w.-]+\+)?(json|xml))\Z")


def document_url(location_uri: str, credential_name) -> str:
    url = location_uri.strip()
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise InvalidParameter(
            f"location_uri must be an http or https URL, not {attributes._show(location_uri)}",
            detail="Object storage URIs of other schemes (oci://, s3://, file paths) are not "
                   "supported; a pre-authenticated https URL is.",
            hint="Call dbms_cloud_ai.summarize(location_uri => 'https://...'), or read the text "
                 "into a table and pass it as content.")
    try:
        _ = parts.port  # ValueError on a port out of range
        httpx.URL(url)
    except (ValueError, httpx.InvalidURL):
        raise InvalidParameter(f"location_uri {attributes._show(location_uri)} is not a valid URL",
                               hint="Call dbms_cloud_ai.summarize(location_uri => "
                                    "'https://host/path').") from None
    if parts.username or parts.password:
        raise InvalidParameter("location_uri must not contain a user name or password",
                               hint="Store them with dbms_cloud.create_credential() and pass "
                                    "credential_name to dbms_cloud_ai.summarize().")
    credentials.require_https(url, credential_name, "location_uri",
                              "Call dbms_cloud_ai.summarize() with an https location_uri.")
    return url


def _basic_auth(plpy, credential_name) -> dict:
    name = names.normalize(credential_name, "credential")
    password = credentials.api_key(plpy, credential_name)
    row = db.one(plpy, "select username from dbms_cloud._credential "
                       "where owner = current_user and credential_name = $1", ("text",), (name,))
    token = base64.b64encode(f"{row['username'] or ''}:{password}".encode()).decode()
    return {"authorization": f"Basic {token}"}


def fetch_document(plpy, ctx, url: str, credential_name) -> str:
    """The text at ``url``: egress allowed by the host ACL (before anything is
    sent), a credential only over https, one deadline, retries, 8 MB at most, no
    redirects."""
    credentials.require_https(url, credential_name, "URL",
                              "Fetch it over https, or without a credential (a vector index: "
                              "dbms_cloud_ai.update_vector_index()).")
    acl.check_egress(plpy, url, ctx.aces)
    headers = _basic_auth(plpy, credential_name) if credential_name is not None else {}
    deadline, attempts = timing.deadline(plpy, ctx.settings, "location_uri")
    doc = http.get(url, headers, deadline=deadline, max_attempts=attempts, plpy=plpy)
    ctype = (doc.content_type or "text/plain").split(";")[0].strip().lower()
    charset = None
    for param in (doc.content_type or "").split(";")[1:]:
        k, _, v = param.partition("=")
        if k.strip().lower() == "charset":
            charset = v.strip().strip('"') or None
    if not _TEXT_TYPES.match(ctype):
        raise FeatureNotSupported(
            f"location_uri {url} is a {ctype} document; only text can be summarized",
            detail="Text types (text/plain, text/markdown, text/html, JSON, XML) are read; "
                   "PDF, Office and other binary formats are not.",
            hint="Extract the text, store it in a table and call "
                 "dbms_cloud_ai.summarize(content => ...).")
    try:
        text = doc.content.decode(charset or "utf-8")
    except (LookupError, UnicodeDecodeError):
        raise FeatureNotSupported(
            f"location_uri {url} is not valid {charset or 'UTF-8'} text",
            hint="Serve the document as UTF-8, or pass its text to "
                 "dbms_cloud_ai.summarize(content => ...).") from None
    if ctype in ("text/html", "application/xhtml+xml"):
        text = html_text(text)
    return text


class _HtmlText(html.parser.HTMLParser):
    SKIP = {"script", "style", "head", "noscript", "template", "svg"}
    BLOCK = {"p", "div", "section", "article", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5",
             "h6", "pre", "blockquote", "table", "ul", "ol", "header", "footer", "main"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skip += 1
        elif tag in self.BLOCK:
            self.out.append("\n\n")

    def handle_endtag(self, tag):
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in self.BLOCK:
            self.out.append("\n\n")

    def handle_data(self, data):
        if not self.skip:
            self.out.append(data)


def html_text(markup: str) -> str:
    """The readable text of an HTML page, paragraphs as blank lines."""
    p = _HtmlText()
    p.feed(markup)
    p.close()
    text = re.sub(r"[ \t\r\f\v]+", " ", "".join(p.out))
    text = re.sub(r" ?\n ?", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()
