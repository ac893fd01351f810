"""The settings page: a signed-in user sees and edits their own preferences, and only theirs.

Every query here is filtered by ``request.user``; no URL or form field names another user. A value
is checked by its key's schema (the same check as every other door) and refused with a message at the
field it names; a stored value that no longer validates is shown as ignored, with why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from preferences.forms import KeyForm, check_value, form_for, suggested
from preferences.schema import KEYS
from preferences.selectors import StoredProblem, preferences_checked
from preferences.services import preference_delete, preference_set
from preferences.wording import describe_preference

__all__ = ["settings_page", "user_calendars"]


@dataclass
class Row:
    """One known key as the page shows it."""

    key: str
    label: str
    help: str
    words: str | None
    problem: StoredProblem | None
    form: KeyForm
    open: bool = False

    @property
    def is_set(self) -> bool:
        return self.words is not None or self.problem is not None


def user_calendars(user: Any) -> dict[str, str]:
    """The user's calendars, key -> name (what a calendar preference may name)."""
    from skills.models import Calendar

    return dict(Calendar.objects.filter(owner=user).order_by("name").values_list("key", "name"))


def _settings_url(key: str = "") -> str:
    return reverse("preferences:settings") + (f"#{key}" if key else "")


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def settings_page(request: HttpRequest) -> HttpResponse:
    user = request.user
    calendars = user_calendars(user)
    refused: KeyForm | None = None
    if request.method == "POST":
        key = request.POST.get("key", "")
        if request.POST.get("action") == "remove":
            label = KEYS[key].label if key in KEYS else f"setting '{key}'"
            if preference_delete(user=user, key=key):
                messages.success(request, f"Removed your {label}.")
            return redirect(_settings_url())
        if key not in KEYS:
            return HttpResponse("Choose one of the known preferences.", status=400)
        form = form_for(key)(request.POST, prefix=key, calendars=calendars)
        form.is_valid()  # the fields refuse nothing; the schema checks the value they make
        raw = form.value()
        value, refusals = check_value(key, raw, calendars)
        if not refusals:
            preference_set(user=user, key=key, value=value)
            words = describe_preference(key, value, calendars=calendars)
            messages.success(request, f"Saved your {KEYS[key].label}: {words}.")
            return redirect(_settings_url(key))
        for refusal in refusals:
            form.add_error(form.field_for(refusal.path, raw), refusal.message)
        refused = form

    checked = preferences_checked(user=user)
    problems = {p.key: p for p in checked.problems}
    rows = []
    for key, spec in KEYS.items():
        stored = checked.values.get(key)
        problem = problems.get(key)
        if refused is not None and refused.key == key:
            form = refused
        else:
            start = stored if stored is not None else (problem.value if problem else suggested(key))
            form = form_for(key)(prefix=key, calendars=calendars, initial=form_for(key).initial_for(start))
        rows.append(
            Row(
                key=key,
                label=spec.label,
                help=spec.help,
                words=describe_preference(key, stored, calendars=calendars) if stored is not None else None,
                problem=problem,
                form=form,
                open=form is refused or problem is not None,
            )
        )
    context = {
        "rows": rows,
        "unknown": [p for p in checked.problems if not p.known],
    }
    return render(request, "preferences/settings.html", context)
