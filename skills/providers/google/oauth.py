"""Connecting a Google account: the OAuth 2 web flow (authorization code with PKCE).

:func:`begin` makes the URL the user's browser is sent to (Google's consent page) and the
:class:`Pending` consent the caller keeps server-side (in the session) until Google sends the
browser back; :func:`finish` checks that the answer is the one this consent asked for and exchanges
the code for tokens.  Both use google-auth-oauthlib's :class:`~google_auth_oauthlib.flow.Flow`
with a client config built from the settings:

- ``GOOGLE_CLIENT_ID`` / ``GOOGLE_CLIENT_SECRET``: the operator's OAuth client (a "Web application"
  client in the Google Cloud console, with this site's callback URL registered as a redirect URI).
- ``GOOGLE_AUTH_URI`` (default Google's consent page) and ``GOOGLE_TOKEN_URI``: overridden by tests
  to point at a loopback server.

The consent asks for ``access_type=offline`` and ``prompt=consent`` because only then does Google
hand out a refresh token every time (a reconnect needs a new one), and ``include_granted_scopes``
so an earlier grant to the same client is kept.  The state and the PKCE verifier never leave the
server: the browser only carries the state, and a code without the verifier is worthless.

Tokens never appear in an exception message or a log line: requests-oauthlib logs the token request
and its answer at DEBUG, so its logger is held at INFO here.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from google_auth_oauthlib.flow import Flow
from oauthlib.oauth2 import OAuth2Error
from requests.exceptions import RequestException

from skills.providers.google.client import DEFAULT_TOKEN_URI, SCOPES

__all__ = [
    "DEFAULT_AUTH_URI",
    "ConsentError",
    "Pending",
    "begin",
    "configured",
    "finish",
]

DEFAULT_AUTH_URI = "https://accounts.google.com/o/oauth2/auth"

# At DEBUG requests-oauthlib logs the token request (code, verifier, client secret) and the tokens.
logging.getLogger("requests_oauthlib").setLevel(logging.INFO)


class ConsentError(Exception):
    """The consent did not give this site a grant; the message is for the user (never a token)."""


@dataclass(frozen=True)
class Pending:
    """A consent under way: what the callback needs to check and complete it (kept server-side)."""

    state: str
    code_verifier: str
    redirect_uri: str

    def as_session(self) -> dict[str, str]:
        return {"state": self.state, "code_verifier": self.code_verifier, "redirect_uri": self.redirect_uri}

    @classmethod
    def from_session(cls, data: Any) -> Pending | None:
        if not isinstance(data, dict):
            return None
        try:
            return cls(str(data["state"]), str(data["code_verifier"]), str(data["redirect_uri"]))
        except KeyError:
            return None


def _setting(name: str, default: str = "") -> str:
    return str(getattr(settings, name, "") or default)


def configured() -> bool:
    """Whether the operator has set up an OAuth client (without one there is nothing to consent to)."""
    return bool(_setting("GOOGLE_CLIENT_ID") and _setting("GOOGLE_CLIENT_SECRET"))


def _flow(redirect_uri: str, **kwargs: Any) -> Flow:
    config = {
        "web": {
            "client_id": _setting("GOOGLE_CLIENT_ID"),
            "client_secret": _setting("GOOGLE_CLIENT_SECRET"),
            "auth_uri": _setting("GOOGLE_AUTH_URI", DEFAULT_AUTH_URI),
            "token_uri": _setting("GOOGLE_TOKEN_URI", DEFAULT_TOKEN_URI),
            "redirect_uris": [redirect_uri],
        }
    }
    return Flow.from_client_config(config, scopes=SCOPES, redirect_uri=redirect_uri, **kwargs)


def begin(redirect_uri: str) -> tuple[str, Pending]:
    """The consent page's URL and the consent to keep until the browser comes back to ``redirect_uri``."""
    flow = _flow(redirect_uri, autogenerate_code_verifier=True)
    url, state = flow.authorization_url(
        access_type="offline", prompt="consent", include_granted_scopes="true"
    )
    assert flow.code_verifier  # made by authorization_url (autogenerate_code_verifier)
    return url, Pending(state=state, code_verifier=flow.code_verifier, redirect_uri=redirect_uri)


def finish(pending: Pending | None, params: Any) -> dict[str, Any]:
    """The credentials to store for the consent ``pending``, from the query Google sent back.

    Returns a dict with ``refresh_token``, ``token`` (the access token), ``expiry`` (ISO, UTC) and
    ``scopes``, as :class:`skills.providers.google.client.GoogleClient` reads them.

    Raises:
        ConsentError: no consent was under way, the state is not the one it sent (a forged or stale
            answer), the user refused, Google refused the code, or no refresh token came back.
    """
    if pending is None:
        raise ConsentError("No Google connection was under way (it may have expired); start it again.")
    if params.get("state") != pending.state:
        raise ConsentError(
            "That answer from Google does not belong to the connection started here, so it was ignored. "
            "Start connecting again from this page."
        )
    if params.get("error"):
        if params.get("error") == "access_denied":
            raise ConsentError("You did not allow access to your Google Calendar, so nothing was connected.")
        raise ConsentError("Google did not grant access, so nothing was connected. Try again.")
    code = params.get("code")
    if not code:
        raise ConsentError("Google's answer had no authorization code, so nothing was connected. Try again.")
    flow = _flow(pending.redirect_uri, code_verifier=pending.code_verifier, state=pending.state)
    try:
        token = flow.fetch_token(code=code)
    except Warning as changed:
        # oauthlib objects when the granted scopes differ from the asked ones (include_granted_scopes
        # adds earlier grants); the token is good, and carried on the warning.
        token = getattr(changed, "token", None)
        if token is None:
            raise ConsentError("Google's answer could not be read, so nothing was connected.") from None
    except OAuth2Error as exc:
        raise ConsentError(
            f"Google refused to complete the connection ({exc.error}); nothing was connected. Try again."
        ) from None
    except RequestException:
        raise ConsentError("Google could not be reached to complete the connection; try again.") from None
    return _credentials(token)


def _credentials(token: Any) -> dict[str, Any]:
    refresh = token.get("refresh_token")
    if not refresh:
        raise ConsentError(
            "Google did not grant lasting access (no refresh token), so nothing was connected. Try again."
        )
    scope = token.get("scope") or SCOPES
    scopes = scope.split() if isinstance(scope, str) else list(scope)
    if not set(SCOPES) <= set(scopes):
        # Google's consent page lets the user untick the calendar box and still grant the rest.
        raise ConsentError(
            "Google did not grant access to your calendars (the Google Calendar box was left unticked), "
            "so nothing was connected. Connect again and allow it."
        )
    expires_at = token.get("expires_at")
    expiry = datetime.fromtimestamp(float(expires_at), UTC).isoformat() if expires_at else ""
    return {
        "refresh_token": refresh,
        "token": token.get("access_token", ""),
        "expiry": expiry,
        "scopes": scopes,
    }
