"""Secrets at rest: calendar account credentials encrypted with dedicated keys.

The keys are ``settings.CREDENTIAL_KEYS`` (the environment's ``CREDENTIAL_KEYS``, Fernet keys separated
by commas), never ``SECRET_KEY``: rotating the key that signs sessions must not make every stored
refresh token unreadable, and a leaked ``SECRET_KEY`` must not also open the tokens.  The first key
encrypts; every key decrypts (``cryptography``'s :class:`~cryptography.fernet.MultiFernet`), so a key
is rotated by putting a new one first, running ``manage.py rotate_credentials`` (which re-encrypts
every stored secret with it) and only then removing the old one.

Nothing here puts a key, a plaintext or a token in an exception message: those messages reach logs.
An instance that only uses its built-in calendars never calls this module, so it needs no key.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

__all__ = [
    "SecretDict",
    "SecretUnreadableError",
    "decrypt_json",
    "encrypt_json",
    "generate_key",
    "rotate_token",
]

_HOW_TO_GENERATE = (
    "Generate one with: python -c 'from cryptography.fernet import Fernet; "
    "print(Fernet.generate_key().decode())' and set CREDENTIAL_KEYS=<that key> in the environment "
    "or in .env (several keys separated by commas: the first encrypts, all decrypt)."
)


class SecretUnreadableError(Exception):
    """No configured key decrypts a stored secret: its key was removed from ``CREDENTIAL_KEYS`` too
    early, or the column was changed outside the app.  The account has to be connected again."""


class SecretDict(dict[str, Any]):
    """Decrypted credentials: a plain dict whose ``repr`` and ``str`` never show the values.

    What is logged, shown in a debug page or interpolated into a message by mistake reads
    ``SecretDict(<2 keys hidden>)``; code that needs a value still reads it by key.
    """

    def __repr__(self) -> str:
        return f"SecretDict(<{len(self)} keys hidden>)"

    __str__ = __repr__


def generate_key() -> str:
    """A new Fernet key, as CREDENTIAL_KEYS takes it."""
    return Fernet.generate_key().decode("ascii")


@cache
def _fernet(keys: tuple[str, ...]) -> MultiFernet:
    """The MultiFernet of ``keys``, built once per key list (cached on the list, so a test's
    ``override_settings`` or a changed setting gets its own)."""
    fernets = []
    for position, key in enumerate(keys, start=1):
        try:
            fernets.append(Fernet(key.strip().encode("ascii")))
        except (ValueError, UnicodeEncodeError):
            # Never the key itself in the message: it would end up in a log.
            raise ImproperlyConfigured(
                f"CREDENTIAL_KEYS: key {position} is not a Fernet key (32 url-safe base64-encoded "
                f"bytes). {_HOW_TO_GENERATE}"
            ) from None
    return MultiFernet(fernets)


def _configured() -> MultiFernet:
    keys = tuple(key for key in getattr(settings, "CREDENTIAL_KEYS", ()) if key.strip())
    if not keys:
        raise ImproperlyConfigured(
            "CREDENTIAL_KEYS is not set, and calendar account credentials are only ever stored "
            f"encrypted. {_HOW_TO_GENERATE}"
        )
    return _fernet(keys)


def encrypt_json(value: dict[str, Any]) -> str:
    """``value`` as JSON, encrypted with the first key: the token a column stores (ASCII).

    Raises:
        ImproperlyConfigured: no key is configured, or one is malformed.
    """
    plaintext = json.dumps(value, separators=(",", ":"), sort_keys=True).encode("utf-8")
    return _configured().encrypt(plaintext).decode("ascii")


def decrypt_json(token: str) -> SecretDict:
    """The credentials a token holds, decrypted with whichever configured key made it.

    Raises:
        ImproperlyConfigured: no key is configured, or one is malformed.
        SecretUnreadableError: no configured key made this token.
    """
    try:
        plaintext = _configured().decrypt(token.encode("ascii"))
    except (InvalidToken, UnicodeEncodeError):
        raise SecretUnreadableError(
            "A stored credential cannot be decrypted with any key in CREDENTIAL_KEYS."
        ) from None
    return SecretDict(json.loads(plaintext))


def rotate_token(token: str) -> str:
    """The same secret encrypted with the first key (a token made by any configured key).

    Raises:
        ImproperlyConfigured: no key is configured, or one is malformed.
        SecretUnreadableError: no configured key made this token.
    """
    try:
        return _configured().rotate(token.encode("ascii")).decode("ascii")
    except (InvalidToken, UnicodeEncodeError):
        raise SecretUnreadableError(
            "A stored credential cannot be decrypted with any key in CREDENTIAL_KEYS."
        ) from None
