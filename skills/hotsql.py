"""The three reads every chat turn makes, in plain SQL: calendars, event titles, people by name.

The rule decomposer reads the user's calendars and event titles on nearly every turn and the
directory whenever someone is named; it has a budget of 5 ms per turn.  Compiling these tiny
querysets costs Django 0.5-0.8 ms each (measured: 0.56 ms for the calendar list, 0.03 ms for the
same statement executed directly), so together they were half a turn.  The statements are built
once per database vendor from the models' ``_meta`` (table and column names, quoted by the
backend), and parameters are adapted by the backend as the ORM would, so they follow the models
and run on SQLite and PostgreSQL alike.  Everything else stays in the ORM.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Field, Model

from skills.models import Calendar, CalendarAccount, Event

__all__ = ["calendar_rows", "event_summaries", "people_rows"]


def _names(model: type[Model], *fields: str) -> list[str]:
    quote = connection.ops.quote_name
    columns = []
    for name in fields:
        field = model._meta.get_field(name)
        assert isinstance(field, Field), f"{model.__name__}.{name} is no column"
        assert field.column, f"{model.__name__}.{name} is no column"
        columns.append(quote(field.column))
    return columns


def _table(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@cache
def _calendars_sql(vendor: str) -> str:
    pk, key, name, tz, default, color, owner, account = _names(
        Calendar, "id", "key", "name", "timezone", "is_default", "color", "owner", "account"
    )
    account_pk, kind = _names(CalendarAccount, "id", "kind")
    return (
        f"SELECT c.{pk}, c.{key}, c.{name}, c.{tz}, c.{default}, c.{color}, a.{kind} "
        f"FROM {_table(Calendar)} c LEFT JOIN {_table(CalendarAccount)} a ON a.{account_pk} = c.{account} "
        f"WHERE c.{owner} = %s ORDER BY c.{default} DESC, c.{name}, c.{pk}"
    )


def calendar_rows(owner_id: int) -> list[tuple[int, str, str, str, bool, str, str]]:
    """(id, key, name, timezone, is_default, color, kind) of the user's calendars, the default first;
    the kind is their account's ("google", "caldav"), "local" for the built-in store's."""
    with connection.cursor() as cursor:
        cursor.execute(_calendars_sql(connection.vendor), [owner_id])
        return [
            (pk, key, name, tz, bool(default), color, kind or "local")
            for pk, key, name, tz, default, color, kind in cursor
        ]


@cache
def _summaries_sql(vendor: str) -> str:
    summary, calendar, status, start, series_end = _names(
        Event, "summary", "calendar", "status", "start", "series_end"
    )
    cal_pk, owner = _names(Calendar, "id", "owner")
    return (
        f"SELECT DISTINCT e.{summary} FROM {_table(Event)} e "
        f"JOIN {_table(Calendar)} c ON c.{cal_pk} = e.{calendar} "
        f"WHERE c.{owner} = %s AND e.{status} = %s AND e.{start} < %s "
        f"AND (e.{series_end} IS NULL OR e.{series_end} >= %s)"
    )


def event_summaries(owner_id: int, *, start: datetime, end: datetime) -> set[str]:
    """Titles of the user's confirmed masters, one-offs and overrides whose span meets the window."""
    adapt = connection.ops.adapt_datetimefield_value
    with connection.cursor() as cursor:
        cursor.execute(
            _summaries_sql(connection.vendor),
            [owner_id, Event.Status.CONFIRMED.value, adapt(end), adapt(start)],
        )
        return {summary for (summary,) in cursor if summary}


@cache
def _people_sql(vendor: str, firsts: int, addresses: int) -> str:
    user = get_user_model()
    pk, first, last, email, active, username = _names(
        user, "id", "first_name", "last_name", "email", "is_active", user.USERNAME_FIELD
    )
    holes = ", ".join(["%s"] * firsts)
    more = ", ".join(["%s"] * addresses)
    return (
        f"SELECT {pk}, {first}, {last}, {email}, {username} FROM {_table(user)} "
        f"WHERE {active} = %s AND {pk} <> %s AND {email} <> '' "
        f"AND (LOWER({first}) IN ({holes}) OR LOWER({email}) IN ({more})) "
        f"ORDER BY {first}, {last}, {email}"
    )


def people_rows(
    *, exclude_id: Any, firsts: list[str], addresses: list[str]
) -> list[tuple[Any, str, str, str, str]]:
    """(id, first name, last name, email, username) of active users other than ``exclude_id`` whose
    lower-cased first name is one of ``firsts`` or whose email is one of ``addresses``."""
    sql = _people_sql(connection.vendor, len(firsts), len(addresses))
    with connection.cursor() as cursor:
        cursor.execute(sql, [True, exclude_id, *firsts, *addresses])
        return list(cursor)
