"""Reads of preferences; every read is scoped to one user and returns only values that validate.

A stored value its schema refuses (a row written before the schema existed, a raw SQL ``UPDATE``) is
left out and reported: logged, and returned as a :class:`StoredProblem` by :func:`preferences_checked`,
so the chat can say which preference it ignored instead of failing on it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from preferences.models import Preference
from preferences.schema import KEYS, PreferenceError, validate_preference

__all__ = [
    "CheckedPreferences",
    "StoredProblem",
    "busy_shared_with",
    "forget_reported",
    "ignored_note",
    "preference_get",
    "preferences_checked",
    "preferences_described",
    "preferences_for",
    "user_timezone",
]

logger = logging.getLogger("preferences")


@dataclass(frozen=True)
class StoredProblem:
    """A stored preference that was ignored, and why (each message names the field)."""

    key: str
    value: Any
    messages: tuple[str, ...]

    @property
    def known(self) -> bool:
        return self.key in KEYS

    @property
    def text(self) -> str:
        """'your saved working hours (working_hours.start: '25:00' is not a time; ...)'."""
        if not self.known:
            return f"a saved setting I don't know, '{self.key}'"
        return f"your saved {KEYS[self.key].label} ({'; '.join(self.messages)})"


@dataclass(frozen=True)
class CheckedPreferences:
    """The user's preferences that validate (canonical form), and the stored ones that did not."""

    values: dict[str, Any] = field(default_factory=dict)
    problems: list[StoredProblem] = field(default_factory=list)


# The stored values already reported, so that a value read on every turn is logged once a process,
# not four times a turn; kept small, as a process may meet many users.
_REPORTED: set[tuple[Any, str, str]] = set()
_REPORTED_MOST = 10_000


def forget_reported() -> None:
    """Report every refused stored value again, at its next read (a restart does the same)."""
    _REPORTED.clear()


def _report(key: str, value: Any, user: Any, exc: PreferenceError) -> None:
    """Log a stored value its schema refuses, once: which user, key and fields, never the value (the
    user wrote it) nor the messages, which quote it; those go to DEBUG."""
    seen = (getattr(user, "pk", user), key, repr(value))
    if seen in _REPORTED:
        return
    if len(_REPORTED) >= _REPORTED_MOST:
        _REPORTED.clear()
    _REPORTED.add(seen)
    fields = ", ".join(sorted({p.field for p in exc.problems})) or key
    logger.warning("preference %s of user %s ignored: %s not valid", key, seen[0], fields)
    logger.debug("preference %s of user %s ignored: %s", key, seen[0], exc)


def _checked(key: str, value: Any, user: Any) -> tuple[Any, StoredProblem | None]:
    try:
        return validate_preference(key, value), None
    except PreferenceError as exc:
        _report(key, value, user, exc)
        return None, StoredProblem(key=key, value=value, messages=tuple(exc.messages))


def preferences_checked(*, user: Any) -> CheckedPreferences:
    """Every stored preference of ``user``: the valid ones by key, the others as problems."""
    checked = CheckedPreferences()
    for key, value in Preference.objects.filter(user=user).values_list("key", "value"):
        canonical, problem = _checked(key, value, user)
        if problem is None:
            checked.values[key] = canonical
        else:
            checked.problems.append(problem)
    return checked


def preferences_for(*, user: Any) -> dict[str, Any]:
    """The user's preferences that validate, by key (the ones that do not are logged and left out)."""
    return preferences_checked(user=user).values


def preference_get(*, user: Any, key: str, default: Any = None) -> Any:
    """The user's valid value for ``key``; ``default`` when it is not set or no longer validates."""
    row = Preference.objects.filter(user=user, key=key).values_list("value", flat=True).first()
    if row is None:
        return default
    canonical, problem = _checked(key, row, user)
    return default if problem is not None else canonical


def busy_shared_with(*, viewer: Any, owner_ids: list[Any]) -> set[Any]:
    """Which of ``owner_ids`` let ``viewer`` see when they are busy, read in one query: their
    ``busy_visible_to``, everyone when it is not set.  A stored value that no longer validates hides
    them: whoever set it meant to share less than everyone, and guessing more would leak."""
    address = (getattr(viewer, "email", "") or "").strip().lower()
    hidden = set()
    rows = Preference.objects.filter(user_id__in=owner_ids, key="busy_visible_to")
    for owner_id, value in rows.values_list("user_id", "value"):
        canonical, problem = _checked("busy_visible_to", value, owner_id)
        if problem is not None:
            hidden.add(owner_id)
            continue
        named = canonical["who"] == "named" and bool(address) and address in canonical["people"]
        if canonical["who"] != "everyone" and not named:
            hidden.add(owner_id)
    return {owner_id for owner_id in owner_ids if owner_id not in hidden}


def user_timezone(*, user: Any) -> str:
    """The user's IANA zone; the instance default until they set a valid one."""
    return str(preference_get(user=user, key="timezone", default=settings.ASSISTANT_DEFAULT_TIMEZONE))


def preferences_described(*, user: Any) -> list[str]:
    """The user's preferences in words, one line each ('Working hours: Monday to Friday, 8 AM to 6 PM'),
    then one line per stored value that is ignored and why: the answer to "what are my preferences?"."""
    from preferences.wording import describe_preferences, preference_label
    from skills.models import Calendar

    checked = preferences_checked(user=user)
    calendars = dict(Calendar.objects.filter(owner=user).values_list("key", "name"))
    lines = describe_preferences(checked.values, calendars=calendars)
    for problem in checked.problems:
        label = preference_label(problem.key)
        what = f"{label[:1].upper()}{label[1:]}" if problem.known else f"Unknown setting '{problem.key}'"
        lines.append(f"{what}: ignored ({'; '.join(problem.messages)})")
    return lines


def ignored_note(problems: list[StoredProblem], *, where: str = "") -> str:
    """What the chat says about preferences it ignored, e.g. 'Note: I ignored your saved working hours
    (working_hours.start: '25:00' is not a time; ...). You can fix it on the settings page (/settings/).'
    An empty string when there is nothing to say."""
    if not problems:
        return ""
    sentences = []
    for problem in problems:
        sentence = f"I ignored {problem.text}"
        if problem.key == "timezone":
            sentence += f" and used {settings.ASSISTANT_DEFAULT_TIMEZONE} instead"
        sentences.append(sentence + ".")
    place = f" ({where})" if where else ""
    fix = "it" if len(problems) == 1 else "them"
    return "Note: " + " ".join(sentences) + f" You can fix {fix} on the settings page{place}."
