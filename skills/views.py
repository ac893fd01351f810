"""Settings → Calendars: a signed-in user connects, chooses, syncs and disconnects their calendar
accounts, and only theirs.

Every account is looked up by its owner (another user's id is a 404), every change is a POST with
a CSRF token, and no page or message ever holds a token or a password.  The work is done by
:mod:`skills.accounts`; the Google consent by :mod:`skills.providers.google.oauth`, whose pending
state and PKCE verifier stay in the session (server-side) between the two legs.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from skills import accounts
from skills.crypto import SecretUnreadableError
from skills.forms import CaldavForm, CalendarChoicesForm, ReconnectCaldavForm
from skills.models import CalendarAccount
from skills.providers.google import oauth

__all__ = [
    "account_disconnect",
    "account_reconnect",
    "account_sync",
    "caldav_connect",
    "calendar_choices",
    "calendars_page",
    "google_callback",
    "google_connect",
]

SESSION_KEY = "google_consent"


def _page_url(account: CalendarAccount | None = None) -> str:
    return reverse("calendars:page") + (f"#account-{account.pk}" if account else "")


def _owned(request: HttpRequest, pk: int) -> CalendarAccount:
    return get_object_or_404(CalendarAccount, pk=pk, owner=request.user, kind__in=accounts.REMOTE_KINDS)


def _redirect_uri(request: HttpRequest) -> str:
    return request.build_absolute_uri(reverse("calendars:google_callback"))


def _render_page(request: HttpRequest, form: CalendarChoicesForm, status: int = 200) -> HttpResponse:
    context = {
        "sections": form.sections(),
        "form": form,
        "google_ready": oauth.configured(),
        "redirect_uri": _redirect_uri(request),
        "credentials_problem": accounts.credentials_problem(),
    }
    return render(request, "skills/calendars.html", context, status=status)


def _report_sync(request: HttpRequest, account: CalendarAccount, outcome: accounts.SyncOutcome) -> None:
    if outcome.ok:
        plural = "" if outcome.changed == 1 else "s"
        messages.success(request, f"Synced {account.display_name}: {outcome.changed} event{plural} changed.")
    else:
        messages.error(request, f"{account.display_name} could not be synced: {outcome.error}")


def _connected(
    request: HttpRequest, account: CalendarAccount, outcome: accounts.SyncOutcome, verb: str
) -> HttpResponse:
    """Land on the account's calendars, the picker, after connecting it."""
    messages.success(
        request, f"{verb} {account.display_name}. Choose which calendars the assistant may read and change."
    )
    _report_sync(request, account, outcome)
    return redirect(_page_url(account))


@login_required
@never_cache
@require_GET
def calendars_page(request: HttpRequest) -> HttpResponse:
    return _render_page(request, CalendarChoicesForm(accounts.overview(request.user)))


@login_required
@require_POST
def calendar_choices(request: HttpRequest) -> HttpResponse:
    form = CalendarChoicesForm(accounts.overview(request.user), request.POST)
    if not form.is_valid():
        messages.error(request, "Nothing was saved; see below.")
        return _render_page(request, form, status=400)
    added = accounts.save_choices(request.user, form.summaries, form.cleaned_data)
    messages.success(request, "Saved your calendar choices.")
    for account in added:
        _report_sync(request, account, accounts.sync(account))
    return redirect(_page_url())


# -- Google ---------------------------------------------------------------------------------------------
def _start_google(request: HttpRequest, account: CalendarAccount | None) -> HttpResponse:
    problem = accounts.credentials_problem()
    if not oauth.configured():
        problem = (
            "Google Calendar cannot be connected on this server yet: the operator has to set "
            "GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET (an OAuth client of the Google Cloud console) "
            f"and register {_redirect_uri(request)} as its redirect URI."
        )
    if problem:
        messages.error(request, problem)
        return redirect(_page_url(account))
    url, pending = oauth.begin(_redirect_uri(request))
    request.session[SESSION_KEY] = {**pending.as_session(), "account": account.pk if account else None}
    return redirect(url)


@login_required
@require_POST
def google_connect(request: HttpRequest) -> HttpResponse:
    return _start_google(request, None)


@login_required
@never_cache
@require_GET
def google_callback(request: HttpRequest) -> HttpResponse:
    kept = request.session.pop(SESSION_KEY, None)
    account_pk = kept.get("account") if isinstance(kept, dict) else None
    reconnecting = _owned(request, account_pk) if account_pk else None
    try:
        credentials = oauth.finish(oauth.Pending.from_session(kept), request.GET)
        account, outcome = accounts.connect_google(request.user, credentials, account=reconnecting)
    except (oauth.ConsentError, accounts.ConnectError, ImproperlyConfigured) as exc:
        messages.error(request, str(exc))
        return redirect(_page_url(reconnecting))
    return _connected(request, account, outcome, "Reconnected" if reconnecting else "Connected")


# -- CalDAV ---------------------------------------------------------------------------------------------
@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def caldav_connect(request: HttpRequest) -> HttpResponse:
    form = CaldavForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            account, outcome = accounts.connect_caldav(
                request.user,
                url=data["url"],
                username=data["username"],
                password=data["password"],
                display_name=data["display_name"],
            )
        except (accounts.ConnectError, ImproperlyConfigured) as exc:
            form.add_error(None, str(exc))
        else:
            return _connected(request, account, outcome, "Connected")
    status = 400 if form.is_bound else 200
    return render(
        request,
        "skills/caldav_connect.html",
        {"form": form, "account": None, "credentials_problem": accounts.credentials_problem()},
        status=status,
    )


# -- one account ----------------------------------------------------------------------------------------
@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def account_reconnect(request: HttpRequest, pk: int) -> HttpResponse:
    """Google: the consent again (a plain link will do: it only sends the user to Google's page);
    CalDAV: the form again, with the stored address and user name but never the password."""
    account = _owned(request, pk)
    if account.kind == CalendarAccount.Kind.GOOGLE:
        return _start_google(request, account)
    stored: dict[str, str] = {}
    if request.method == "GET":
        try:
            stored = {key: account.credentials.get(key, "") for key in ("url", "username")}
        except (ImproperlyConfigured, SecretUnreadableError):
            stored = {}  # the user types them again
    form = ReconnectCaldavForm(request.POST or None, initial=stored)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            outcome = accounts.reconnect_caldav(
                account, url=data["url"], username=data["username"], password=data["password"]
            )
        except (accounts.ConnectError, ImproperlyConfigured) as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Reconnected {account.display_name}.")
            _report_sync(request, account, outcome)
            return redirect(_page_url(account))
    return render(
        request,
        "skills/caldav_connect.html",
        {"form": form, "account": account, "credentials_problem": accounts.credentials_problem()},
        status=400 if form.is_bound else 200,
    )


@login_required
@require_POST
def account_sync(request: HttpRequest, pk: int) -> HttpResponse:
    account = _owned(request, pk)
    _report_sync(request, account, accounts.sync(account))
    return redirect(_page_url(account))


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def account_disconnect(request: HttpRequest, pk: int) -> HttpResponse:
    """GET asks to confirm; POST removes the account here (never anything on the server)."""
    account = _owned(request, pk)
    if request.method == "GET":
        return render(
            request, "skills/disconnect.html", {"account": account, "calendars": account.calendars.all()}
        )
    name, kind = account.display_name, account.get_kind_display()
    calendars, events = accounts.disconnect(account)
    messages.success(
        request,
        f"Disconnected {name}: its {calendars} calendar{'' if calendars == 1 else 's'} and {events} "
        f"event{'' if events == 1 else 's'} were removed from here. Nothing was changed in {kind}.",
    )
    return redirect(_page_url())
