"""Writes of the local calendar store, shared by the provider, the ICS import and the data loaders.

These functions trust their caller about *whose* calendar it is (the provider checks ownership);
what they guarantee is that every row stays consistent: a fresh etag on every write, the rule in
canonical form, ``series_end`` recomputed, and overrides kept attached to the occurrence they change.
They raise ``ValueError`` (or Django's ``ValidationError``) for requests that make no sense.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from enum import Enum
from typing import Any, Literal
from zoneinfo import ZoneInfo

from django.db import transaction
from django.utils.text import slugify

from skills.models import Calendar, Event, new_etag, new_uid, validate_timezone
from skills.providers.base import EventData
from skills.recurrence import (
    as_local_midnight,
    count_before,
    normalise_rule,
    rule_count,
    series_end,
    shift_rule,
    truncate_rule,
    with_count,
)

__all__ = [
    "calendar_create",
    "calendar_free_key",
    "event_apply",
    "event_create",
    "event_delete",
    "event_place",
    "event_ready",
    "event_save",
    "occurrence_cancel",
    "occurrence_new",
    "occurrence_restore",
    "occurrence_update",
    "row_image",
    "series_image",
    "series_restore",
    "series_split",
    "series_truncate",
    "series_update",
]

# Fields an override or a split-off series inherits from its master.
_CONTENT_FIELDS = (
    "calendar",
    "summary",
    "description",
    "location",
    "timezone",
    "all_day",
    "organizer",
    "visibility",
    "transparency",
)


def calendar_free_key(owner: Any, name: str) -> str:
    """A key for a new calendar of ``owner`` named ``name`` that none of theirs has: its slug, with
    "-2", "-3"... when taken (room is left for the suffix under the 64-character column)."""
    base = slugify(name)[:56] or "calendar"
    taken = set(Calendar.objects.filter(owner=owner, key__startswith=base).values_list("key", flat=True))
    key, n = base, 2
    while key in taken:
        key, n = f"{base}-{n}", n + 1
    return key


def calendar_create(
    *, owner: Any, key: str, name: str, timezone: str, is_default: bool = False, color: str = ""
) -> Calendar:
    """Create a calendar; making it the default takes the flag from the user's previous default."""
    validate_timezone(timezone)
    with transaction.atomic():
        if is_default:
            Calendar.objects.filter(owner=owner, is_default=True).update(is_default=False)
        return Calendar.objects.create(
            owner=owner, key=key, name=name, timezone=timezone, is_default=is_default, color=color
        )


def _aware(moment: datetime, zone: ZoneInfo) -> datetime:
    """Naive datetimes are read as wall time in the event's zone, the only zone they can mean."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=zone)


def _local_date(value: date, zone: ZoneInfo) -> date:
    return value.astimezone(zone).date() if isinstance(value, datetime) else value


def event_place(*, event: Event, start: date, end: date | None, all_day: bool) -> None:
    """Set a row's times: timed from datetimes (naive ones are wall time in the event's zone),
    all-day from dates or datetimes (their local date), with ``end`` exclusive."""
    zone = event.zone
    event.all_day = all_day
    if all_day:
        first = _local_date(start, zone)
        last = _local_date(end, zone) if end is not None else first
        if last < first:
            raise ValueError("An event cannot end before it starts.")
        # An end on the start day means that one day: callers often give the inclusive last day.
        event.start_date, event.end_date = first, max(last, first + timedelta(days=1))
        event.start = as_local_midnight(event.start_date, zone)
        event.end = as_local_midnight(event.end_date, zone)
        return
    if not isinstance(start, datetime) or not isinstance(end, datetime):
        raise ValueError("A timed event needs a start and an end time.")
    event.start, event.end = _aware(start, zone), _aware(end, zone)
    event.start_date = event.end_date = None


def event_save(*, event: Event, revise: bool = True) -> Event:
    """Persist a row, keeping its derived fields true.

    Args:
        event: the row, new or changed.
        revise: whether this is a revision other calendars should notice (RFC 5545 SEQUENCE).
    """
    event_ready(event=event, revise=revise)
    event.save()
    return event


def event_ready(*, event: Event, revise: bool = True) -> Event:
    """Everything :func:`event_save` does to a row but writing it: validated, derived fields true.

    For a caller that inserts many new rows in one statement (a bulk move's first change of 500
    occurrences), which has to write them itself.
    """
    if event.rrule and event.series_id is not None:
        raise ValueError("A single occurrence cannot have its own recurrence rule.")
    if event.rrule:
        event.rrule = normalise_rule(event.rrule, zone=event.zone, all_day=event.all_day, dtstart=event.start)
    event.clean_fields()
    if event.end < event.start:
        raise ValueError("An event cannot end before it starts.")
    event.etag = new_etag()
    if revise and event.pk is not None:
        event.sequence += 1
    event.series_end = series_end(event)
    return event


def event_create(
    *,
    calendar: Calendar,
    summary: str,
    start: date,
    end: date | None,
    timezone: str = "",
    all_day: bool = False,
    rrule: str = "",
    attendees: Iterable[str] = (),
    visibility: str = "default",
    location: str = "",
    description: str = "",
    transparency: str = "opaque",
    organizer: str = "",
    operation_id: str = "",
) -> Event:
    """Create an event: timed from aware (or local wall) datetimes, all-day from dates (end exclusive).

    ``timezone`` defaults to the calendar's and anchors the wall time of every recurrence;
    ``organizer`` defaults to the calendar owner's email.
    """
    if not summary.strip():
        raise ValueError("An event needs a title.")
    event = Event(
        calendar=calendar,
        summary=summary.strip(),
        timezone=timezone or calendar.timezone,
        rrule=rrule,
        attendees=list(attendees),
        visibility=visibility,
        location=location,
        description=description,
        transparency=transparency,
        organizer=organizer or calendar.owner.email,
        operation_id=operation_id,
    )
    validate_timezone(event.timezone)
    event_place(event=event, start=start, end=end, all_day=all_day)
    return event_save(event=event, revise=False)


def event_delete(*, event: Event) -> None:
    """Delete a one-off event or a whole series; a series' overrides go with it (CASCADE)."""
    event.delete()


def _has_times(data: EventData) -> bool:
    return any(v is not None for v in (data.start, data.end, data.start_date, data.end_date, data.all_day))


def _apply_times(event: Event, data: EventData) -> None:
    """Move a row as asked; an unchanged end keeps the event's duration."""
    if not _has_times(data):
        return
    zone = event.zone
    all_day = event.all_day if data.all_day is None else data.all_day
    if all_day:
        start_day: date | None = data.start_date or data.start
        if start_day is None:
            start_day = event.start_date or event.start.astimezone(zone).date()
        days = (event.end_date - event.start_date).days if event.end_date and event.start_date else 1
        end_day: date = data.end_date or data.end or _local_date(start_day, zone) + timedelta(days=days)
        event_place(event=event, start=start_day, end=end_day, all_day=True)
        return
    start = data.start or (None if event.all_day else event.start)
    if start is None:
        raise ValueError("Give the time the event should start at.")
    start = _aware(start, zone)
    end = data.end or (None if event.all_day else start.astimezone(UTC) + (event.end - event.start))
    if end is None:
        raise ValueError("Give the time the event should end at.")
    event_place(event=event, start=start, end=end, all_day=False)


def event_apply(*, event: Event, data: EventData) -> Event:
    """Change a row's fields as ``data`` asks (None leaves a field as it is) and save it."""
    _change(event, data)
    return event_save(event=event)


def _change(event: Event, data: EventData) -> None:
    """Change a row's fields as ``data`` asks, without saving it."""
    for name in ("summary", "description", "location", "visibility", "transparency", "timezone", "rrule"):
        value = getattr(data, name)
        if value is not None:
            setattr(event, name, value)
    if data.attendees is not None:
        event.attendees = list(data.attendees)
    if not event.summary.strip():
        raise ValueError("An event needs a title.")
    validate_timezone(event.timezone)
    _apply_times(event, data)


def _duration_from(master: Event, start: datetime) -> tuple[datetime, datetime]:
    """Start and end of the master's occurrence beginning at ``start`` (its original start)."""
    if master.all_day:
        assert master.start_date is not None
        assert master.end_date is not None
        day = start.astimezone(master.zone).date()
        return start, as_local_midnight(day + (master.end_date - master.start_date), master.zone)
    return start, start + (master.end - master.start)


def _copy(master: Event, start: datetime) -> Event:
    """A new row with the master's content, placed at the occurrence that starts at ``start``."""
    copy = Event(**{name: getattr(master, name) for name in _CONTENT_FIELDS})
    copy.attendees = list(master.attendees)
    begin, end = _duration_from(master, start)
    event_place(event=copy, start=begin, end=end, all_day=master.all_day)
    return copy


class _Unread(Enum):
    """The mark of an argument the caller has not read (None is an answer: there is none)."""

    UNREAD = "unread"


def occurrence_update(
    *,
    master: Event,
    recurrence_id: datetime,
    data: EventData,
    override: Event | Literal[_Unread.UNREAD] | None = _Unread.UNREAD,
) -> Event:
    """Change one occurrence: its override row, created from the series on its first change.

    ``override`` is the occurrence's override row (None: it has none) when the caller has read it
    already: a batch of 500 changes reads them all in one query, and reading each again here was a
    query per change and a third of a bulk move's time.
    """
    _single(data)
    if override is _Unread.UNREAD:
        override = master.overrides.filter(recurrence_id=recurrence_id).first()
    if override is None:
        override = occurrence_new(master=master, recurrence_id=recurrence_id, data=data)
        override.save()
        return override
    if override.series_id == master.pk:
        override.series = master  # held, so validating the row does not read its series again
    return event_apply(event=override, data=data)


def occurrence_new(*, master: Event, recurrence_id: datetime, data: EventData) -> Event:
    """The override row of an occurrence changed for the first time, ready but not yet inserted.

    :func:`occurrence_update` inserts it; a batch of first changes (a bulk move) inserts all of its
    new rows in one statement instead, where saving each was nearly half of the move's time.
    """
    _single(data)
    override = _copy(master, recurrence_id)
    override.uid, override.series, override.recurrence_id = master.uid, master, recurrence_id
    _change(override, data)
    return event_ready(event=override)


def _single(data: EventData) -> None:
    """Refuse a rule for one occurrence: only a series repeats."""
    if data.rrule is not None:
        raise ValueError("A single occurrence cannot get its own recurrence rule; change the series.")


@transaction.atomic
def occurrence_cancel(*, master: Event, recurrence_id: datetime) -> None:
    """Cancel one occurrence with an EXDATE; the other occurrences and the rule stay as they are."""
    master.overrides.filter(recurrence_id=recurrence_id).delete()
    master.exdates = [*master.exdates, recurrence_id.astimezone(UTC).isoformat()]
    event_save(event=master)


def _shift(moment: datetime, zone: ZoneInfo, delta: timedelta) -> datetime:
    """Move an instant by a wall-time distance, so 14:00 stays 14:00-plus-delta across DST."""
    wall = moment.astimezone(zone).replace(tzinfo=None) + delta
    return wall.replace(tzinfo=zone).astimezone(UTC)


def _move_series(master: Event, recurrence_id: datetime, data: EventData) -> datetime:
    """Move every occurrence by the wall-time distance the occurrence at ``recurrence_id`` moves.

    Returns the occurrence's new original start.  Exceptions and overrides move along, so a
    cancelled or changed occurrence stays attached to the same instance of the series.
    """
    if data.all_day is not None and data.all_day != master.all_day:
        raise ValueError("A series cannot switch between all-day and timed; create a new one.")
    zone = master.zone
    probe = _copy(master, recurrence_id)
    _apply_times(probe, data)
    delta = probe.start.astimezone(zone).replace(tzinfo=None) - recurrence_id.astimezone(zone).replace(
        tzinfo=None
    )
    days = (probe.start.astimezone(zone).date() - recurrence_id.astimezone(zone).date()).days
    master.rrule = shift_rule(master.rrule, zone=zone, all_day=master.all_day, delta=delta, days=days)
    first = _shift(master.start, zone, delta)
    if master.all_day:
        assert probe.start_date is not None
        assert probe.end_date is not None
        last = _local_date(first, zone) + (probe.end_date - probe.start_date)
        event_place(event=master, start=first, end=last, all_day=True)
    else:
        event_place(event=master, start=first, end=first + (probe.end - probe.start), all_day=False)
    master.exdates = [_shift(datetime.fromisoformat(x), zone, delta).isoformat() for x in master.exdates]
    # Walk overrides away from the direction of travel so no two share a recurrence id mid-way.
    overrides = master.overrides.order_by("-recurrence_id" if delta > timedelta(0) else "recurrence_id")
    for override in overrides:
        assert override.recurrence_id is not None
        untouched = override.start == override.recurrence_id
        override.recurrence_id = _shift(override.recurrence_id, zone, delta)
        if untouched:
            begin, end = _duration_from(override, override.recurrence_id)
            event_place(event=override, start=begin, end=end, all_day=override.all_day)
        event_save(event=override)
    return _shift(recurrence_id, zone, delta)


@transaction.atomic
def series_update(*, master: Event, recurrence_id: datetime, data: EventData) -> datetime:
    """Change the whole series, addressed through one of its occurrences.

    A new time shifts every occurrence's wall time by as much as that occurrence moves, keeping the
    duration unless a new end is given.  A new rule redefines the series, so its exceptions go.
    Returns the addressed occurrence's original start after the change.
    """
    moved = recurrence_id
    if _has_times(data):
        moved = _move_series(master, recurrence_id, data)
    if data.rrule is not None and data.rrule != master.rrule:
        master.overrides.all().delete()
        master.exdates = []
    event_apply(
        event=master, data=replace(data, start=None, end=None, start_date=None, end_date=None, all_day=None)
    )
    return moved


@transaction.atomic
def series_split(*, master: Event, recurrence_id: datetime) -> Event:
    """End the series before ``recurrence_id`` and continue it as a new series from there.

    The new series gets its own UID (as RFC 5545 clients expect of a split), the exceptions and
    overrides from that occurrence on, and what remains of a COUNT.  Splitting at the first
    occurrence changes nothing and returns the master itself.
    """
    before = count_before(master, recurrence_id)
    if before == 0:
        return master
    rule = master.rrule
    count = rule_count(rule)
    tail = _copy(master, recurrence_id)
    tail.uid = new_uid()
    tail.rrule = rule if count is None else with_count(rule, count - before)
    tail.exdates = [x for x in master.exdates if datetime.fromisoformat(x) >= recurrence_id]
    master.exdates = [x for x in master.exdates if datetime.fromisoformat(x) < recurrence_id]
    master.rrule = truncate_rule(rule, zone=master.zone, all_day=master.all_day, before=recurrence_id)
    event_save(event=master)
    event_save(event=tail, revise=False)
    for override in master.overrides.filter(recurrence_id__gte=recurrence_id):
        override.series, override.uid = tail, tail.uid
        event_save(event=override, revise=False)
    return tail


@transaction.atomic
def series_truncate(*, master: Event, recurrence_id: datetime) -> None:
    """Delete the occurrence at ``recurrence_id`` and all after it (the whole series from the first)."""
    if count_before(master, recurrence_id) == 0:
        event_delete(event=master)
        return
    master.overrides.filter(recurrence_id__gte=recurrence_id).delete()
    master.exdates = [x for x in master.exdates if datetime.fromisoformat(x) < recurrence_id]
    master.rrule = truncate_rule(master.rrule, zone=master.zone, all_day=master.all_day, before=recurrence_id)
    event_save(event=master)


# -- images: what undo puts back ------------------------------------------------------------------------
# A row's own content; etag, sequence and series_end are derived, and ids are the store's to give.
_IMAGE_FIELDS = (
    "summary",
    "description",
    "location",
    "timezone",
    "all_day",
    "rrule",
    "exdates",
    "attendees",
    "organizer",
    "visibility",
    "transparency",
    "status",
)


def _iso(moment: date | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat() if isinstance(moment, datetime) else moment.isoformat()


def row_image(event: Event) -> dict[str, Any]:
    """One row's content as JSON, instants in UTC so that an image read back from the database equals
    the one taken from the row in memory (which is how a restore tells the row is unchanged)."""
    image: dict[str, Any] = {name: getattr(event, name) for name in _IMAGE_FIELDS}
    image["attendees"] = list(event.attendees)
    image["exdates"] = list(event.exdates)
    for name in ("start", "end", "start_date", "end_date", "recurrence_id"):
        image[name] = _iso(getattr(event, name))
    return image


def series_image(event: Event) -> dict[str, Any]:
    """A one-off event or a whole series (master and overrides) as JSON: what undo needs to put it
    back exactly, in place or, once deleted, as a new row with the same UID."""
    overrides = event.overrides.order_by("recurrence_id") if event.rrule and event.pk is not None else []
    return {
        "id": str(event.pk),
        "calendar_id": str(event.calendar_id),
        "uid": event.uid,
        **row_image(event),
        "overrides": [row_image(override) for override in overrides],
    }


def _from_image(event: Event, image: dict[str, Any]) -> None:
    for name in _IMAGE_FIELDS:
        setattr(event, name, image[name])
    event.attendees, event.exdates = list(image["attendees"]), list(image["exdates"])
    for name in ("start", "end", "recurrence_id"):
        setattr(event, name, datetime.fromisoformat(image[name]) if image[name] else None)
    for name in ("start_date", "end_date"):
        setattr(event, name, date.fromisoformat(image[name]) if image[name] else None)


def _override_from_image(master: Event, image: dict[str, Any]) -> Event:
    override = Event(calendar=master.calendar, series=master, uid=master.uid)
    _from_image(override, image)
    return event_save(event=override, revise=False)


@transaction.atomic
def series_restore(*, event: Event, image: dict[str, Any]) -> Event:
    """Make ``event`` (a saved row, or a new one in the image's calendar) what ``image`` shows.

    Overrides are written anew from the image rather than patched: a series moved since the image
    was taken has shifted their recurrence ids, so only the image says where each belongs.
    """
    _from_image(event, image)
    event.uid = image["uid"]
    event_save(event=event)
    event.overrides.all().delete()
    for override in image["overrides"]:
        _override_from_image(event, override)
    return event


@transaction.atomic
def occurrence_restore(*, master: Event, recurrence_id: datetime, override: dict[str, Any] | None) -> None:
    """Bring a cancelled occurrence back into its series (the reverse of :func:`occurrence_cancel`),
    with the override it had, so it keeps its own time and title and its recurrence id."""
    moment = recurrence_id.timestamp()
    master.exdates = [x for x in master.exdates if datetime.fromisoformat(x).timestamp() != moment]
    event_save(event=master)
    if override is not None:
        _override_from_image(master, override)
