"""Credential secrets at rest: AES-256-GCM under a master key kept outside the database.

The master key is a file readable only by the server's OS user (make key
creates /etc/dbms_cloud_ai/master.key).  Its path can be changed only through
the server's environment (DBMS_CLOUD_AI_KEY_FILE), never through a setting an
SQL user could change.  Each ciphertext is bound to its owner, credential name
and the binding id of the owner's role (role_binding.py) as associated data, so a row
copied to another owner, or kept for a later role of the same name, does not
decrypt.  Ciphertexts made before 0.3.0 (key_id without ROLE_BOUND) have no
binding id in their associated data; they decrypt only through row-level
security, which shows a row only to the role its name is bound to.
"""

from __future__ import annotations

import hashlib
import os
import stat

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from .errors import ConfigurationError, NotInPrerequisiteState

DEFAULT_KEY_FILE = "/etc/dbms_cloud_ai/master.key"
_cache: dict[str, tuple[bytes, str]] = {}
_aeads: dict[bytes, AESGCM] = {}     # one cipher object per master key, not one per call


def key_file() -> str:
    return os.environ.get("DBMS_CLOUD_AI_KEY_FILE") or DEFAULT_KEY_FILE


def _master() -> tuple[bytes, str]:
    path = key_file()
    cached = _cache.get(path)
    if cached:
        return cached
    hint = "Run 'make key' as root (it creates the key), or point DBMS_CLOUD_AI_KEY_FILE " \
           "in the server's environment at a file holding 64 hex digits."
    try:
        st = os.stat(path)
        with open(path, encoding="ascii") as f:
            text = f.read().strip()
    except OSError as e:
        raise ConfigurationError("dbms_cloud_ai master key file is not readable",
                                 detail=f"{path}: {e.strerror}", hint=hint) from None
    if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigurationError("dbms_cloud_ai master key file is readable by other OS users",
                                 detail=path, hint="chmod 600 the key file.")
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != 32:
        raise ConfigurationError("dbms_cloud_ai master key file does not hold 64 hex digits",
                                 detail=path, hint=hint)
    kid = hashlib.sha256(key).hexdigest()[:16]
    _cache[path] = (key, kid)
    return key, kid


ROLE_BOUND = "+role"   # key_id suffix: the associated data carries the binding id


def _aead(key: bytes) -> AESGCM:
    aead = _aeads.get(key)
    if aead is None:
        aead = _aeads[key] = AESGCM(key)
    return aead


def _aad(owner: str, credential_name: str, binding: str | None) -> bytes:
    aad = b"dbms_cloud_ai.credential\x00" + owner.encode() + b"\x00" + credential_name.encode()
    return aad if binding is None else aad + b"\x00" + binding.encode()


def encrypt(owner: str, credential_name: str, secret: str, binding: str) -> tuple[bytes, str]:
    key, kid = _master()
    nonce = os.urandom(12)
    aad = _aad(owner, credential_name, binding)
    return nonce + _aead(key).encrypt(nonce, secret.encode(), aad), kid + ROLE_BOUND


def decrypt(owner: str, credential_name: str, blob: bytes, kid: str, binding: str | None) -> str:
    key, current = _master()
    bound = kid.endswith(ROLE_BOUND)
    if bound:
        kid = kid[:-len(ROLE_BOUND)]
    if kid != current:
        raise NotInPrerequisiteState(
            f"credential {credential_name} was encrypted with another master key",
            hint="Store the secret again with dbms_cloud.update_credential(credential_name, "
                 "'password', '<secret>').")
    try:
        if bound and binding is None:
            raise ValueError("no binding")
        aad = _aad(owner, credential_name, binding if bound else None)
        return _aead(key).decrypt(blob[:12], blob[12:], aad).decode()
    except (InvalidTag, ValueError):
        raise NotInPrerequisiteState(
            f"credential {credential_name} cannot be decrypted by its owner",
            detail="The stored secret is not bound to this owner and name.",
            hint="Store the secret again with dbms_cloud.update_credential(credential_name, "
                 "'password', '<secret>').") from None
