"""The provider registry and the router: each calendar's writes go to its account kind's provider, reads
to the built-in store, and the built-in path costs exactly what it did."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from skills import providers
from skills.models import Calendar, CalendarAccount, Event
from skills.providers import CalendarRouter, UnknownProviderError, provider_class, provider_for
from skills.providers.base import (
    CalendarProvider,
    EventData,
    Occurrence,
    PermissionDeniedError,
    ProviderError,
    Scope,
    Write,
    Written,
)
from skills.providers.local import LocalProvider
from skills.services import calendar_create, event_create
from tests.factories import user_with_calendar

pytestmark = pytest.mark.django_db

NY = ZoneInfo("America/New_York")
DAY = datetime(2026, 3, 3, tzinfo=NY)
WITH_CALDAV = {
    "local": "skills.providers.local.LocalProvider",
    "caldav": "tests.providers.test_routing.MirrorProvider",
}

# Every kind of account has a provider in the settings now: the unknown-kind tests take caldav away.
WITHOUT_CALDAV = {
    "local": "skills.providers.local.LocalProvider",
    "google": "skills.providers.google.GoogleProvider",
}


class MirrorProvider(LocalProvider):
    """A remote kind as the module docstring of skills.providers shapes it, minus the network: it
    writes the mirror itself, and notes every batch it is handed and every read asked of it."""

    batches: ClassVar[list[list[Write]]] = []
    reads: ClassVar[int] = 0

    def apply_writes(self, writes: Any) -> list[Written]:
        MirrorProvider.batches.append(list(writes))
        return super().apply_writes(writes)

    def list_occurrences(self, **kwargs: Any) -> list[Occurrence]:
        MirrorProvider.reads += 1
        return super().list_occurrences(**kwargs)


@pytest.fixture(autouse=True)
def _fresh_mirror() -> None:
    MirrorProvider.batches = []
    MirrorProvider.reads = 0


def _at(hour: int) -> datetime:
    return DAY.replace(hour=hour)


def _data(title: str, hour: int) -> EventData:
    return EventData(summary=title, start=_at(hour), end=_at(hour + 1), timezone="America/New_York")


def _team(user: Any, kind: str = CalendarAccount.Kind.CALDAV, **extra: Any) -> Calendar:
    """A calendar of ``user``'s account of ``kind``, as a sync would have mirrored it."""
    account = CalendarAccount.objects.create(owner=user, kind=kind, display_name=f"{kind} account")
    team = calendar_create(owner=user, key="team", name="Team", timezone="America/New_York")
    Calendar.objects.filter(pk=team.pk).update(account=account, remote_id="/dav/team/", **extra)
    return team


def _event(calendar: Calendar, title: str, hour: int, **extra: Any) -> Event:
    return event_create(calendar=calendar, summary=title, start=_at(hour), end=_at(hour + 1), **extra)


# -- the registry --------------------------------------------------------------------------------------------
def test_the_built_in_kind_is_the_local_provider() -> None:
    assert provider_class("local") is LocalProvider


def test_a_kind_is_resolved_once_per_dotted_path(monkeypatch: pytest.MonkeyPatch) -> None:
    imported: list[str] = []
    real = providers.import_string

    def counting(path: str) -> Any:
        imported.append(path)
        return real(path)

    monkeypatch.setattr(providers, "import_string", counting)
    providers._provider_class_at.cache_clear()
    with override_settings(CALENDAR_PROVIDERS=WITH_CALDAV):
        for _ in range(3):
            assert provider_class("caldav") is MirrorProvider
            assert provider_class("local") is LocalProvider

    assert sorted(imported) == sorted(WITH_CALDAV.values())


@override_settings(CALENDAR_PROVIDERS=WITHOUT_CALDAV)
def test_an_unknown_kind_is_a_clear_error() -> None:
    with pytest.raises(
        UnknownProviderError, match="No calendar provider is registered for 'caldav' accounts"
    ) as e:
        provider_class("caldav")

    assert "CALENDAR_PROVIDERS has google, local" in str(e.value)
    assert isinstance(e.value, ProviderError)  # a workflow step reports it like a refused write
    assert isinstance(e.value, ImproperlyConfigured)  # and the fix is in the settings


@pytest.mark.parametrize(
    ("path", "complaint"),
    [
        ("skills.providers.nowhere.Provider", "cannot be imported"),
        ("skills.models.Calendar", "not a Calendar"),
    ],
)
def test_a_registered_path_that_is_no_provider_is_improperly_configured(path: str, complaint: str) -> None:
    with (
        override_settings(CALENDAR_PROVIDERS={"local": path}),
        pytest.raises(ImproperlyConfigured, match=complaint),
    ):
        provider_class("local")


def test_callers_get_a_router_over_the_built_in_store() -> None:
    user, _ = user_with_calendar("ann")

    router = provider_for(user)

    assert isinstance(router, CalendarRouter)
    assert type(router.local) is LocalProvider


# -- the built-in path costs what it did ---------------------------------------------------------------------
_VOLATILE = re.compile(r"'[^']*'|\"s\d+_x\d+\"|\b\d+(?:\.\d+)?\b")


def _queries(action: Callable[[], Any]) -> list[str]:
    """The SQL ``action`` sends, with literals (ids, times, savepoint names) blanked."""
    with CaptureQueriesContext(connection) as captured:
        action()
    return [_VOLATILE.sub("?", query["sql"]) for query in captured.captured_queries]


def _series(calendar: Calendar, title: str) -> Event:
    return _event(calendar, title, 9, rrule="FREQ=DAILY;COUNT=30", timezone="America/New_York")


def test_reads_through_the_router_send_the_same_queries_as_the_built_in_provider() -> None:
    user, work = user_with_calendar("ann")
    _, other = user_with_calendar("raj")
    series = _series(work, "Standup")
    _event(other, "Busy", 14)
    local, router = LocalProvider(user), provider_for(user)
    start, end = DAY, DAY + timedelta(days=14)
    reads: list[Callable[[CalendarProvider], Any]] = [
        lambda p: p.list_calendars(),
        lambda p: p.list_occurrences(start=start, end=end),
        lambda p: p.list_occurrences(start=start, end=end, calendar_ids=[str(work.pk)]),
        lambda p: p.get_occurrence(event_id=str(series.pk), recurrence_id=_at(9) + timedelta(days=2)),
        lambda p: p.get_occurrences([(str(series.pk), _at(9) + timedelta(days=n)) for n in range(5)]),
        lambda p: p.busy_reader(start=start, end=end)(DAY, DAY + timedelta(days=3)),
        lambda p: p.event_titles(start=start, end=end),
        lambda p: p.free_busy(emails=["raj@example.com"], start=start, end=end),
        lambda p: p.default_calendar(),
        lambda p: p.calendar_by_key("work"),
    ]

    for read in reads:
        read(local)  # warm the caches the store keeps (expansions), for both alike
        expected = _queries(lambda read=read: read(local))  # type: ignore[misc]
        assert _queries(lambda read=read: read(router)) == expected  # type: ignore[misc]
        assert read(router) == read(local)


def test_writes_through_the_router_send_the_same_queries_once_it_knows_the_calendars() -> None:
    user, work = user_with_calendar("ann")
    local, router = LocalProvider(user), provider_for(user)
    lookup = _queries(lambda: router.create_event(calendar_id=str(work.pk), data=_data("Warm-up", 7)))
    assert (
        len(lookup)
        == len(_queries(lambda: local.create_event(calendar_id=str(work.pk), data=_data("x", 7)))) + 1
    )
    mine = {name: _series(work, name) for name in ("local", "router")}

    def writes(provider: CalendarProvider, name: str) -> list[Callable[[], Any]]:
        series = mine[name]
        third = _at(9) + timedelta(days=2)
        return [
            lambda: provider.create_event(calendar_id=str(work.pk), data=_data(f"{name} one-off", 15)),
            lambda: provider.create_event(
                calendar_id=str(work.pk), data=_data(name, 16), operation_id=f"op-{name}"
            ),
            lambda: provider.update_event(
                event_id=str(series.pk),
                recurrence_id=third,
                data=_data(f"{name} moved", 11),
                operation_id=f"m-{name}",
            ),
            lambda: provider.apply_writes(
                [
                    Write(
                        action="update",
                        event_id=str(series.pk),
                        recurrence_id=_at(9) + timedelta(days=n),
                        data=EventData(summary=f"{name} {n}"),
                    )
                    for n in range(4, 12)
                ]
            ),
            lambda: provider.delete_event(event_id=str(series.pk), recurrence_id=_at(9) + timedelta(days=20)),
            lambda: provider.restore(
                image=provider.apply_writes(
                    [
                        Write(
                            action="delete",
                            event_id=str(series.pk),
                            recurrence_id=_at(9) + timedelta(days=25),
                            scope=Scope.FOLLOWING,
                        )
                    ]
                )[0].restore_image
                or {},
                event_id=str(series.pk),
            ),
        ]

    for direct, routed in zip(writes(local, "local"), writes(router, "router"), strict=True):
        assert _queries(routed) == _queries(direct)


def test_the_calendars_are_read_once_per_router_and_never_for_reads() -> None:
    user, work = user_with_calendar("ann")
    router = provider_for(user)

    for_reads = _queries(lambda: router.list_occurrences(start=DAY, end=DAY + timedelta(days=1)))
    first = _queries(lambda: router.create_event(calendar_id=str(work.pk), data=_data("One", 9)))
    second = _queries(lambda: router.create_event(calendar_id=str(work.pk), data=_data("Two", 11)))

    # The router's own lookup (which calendars are not plain built-in ones) reads "writable"; the
    # calendar list every read makes names each calendar's kind in the same single query.
    lookups = [q for q in first + second + for_reads if "skills_calendaraccount" in q and "writable" in q]
    assert len(lookups) == 1
    assert len(first) == len(second) + 1


# -- routing to a registered kind ----------------------------------------------------------------------------
@override_settings(CALENDAR_PROVIDERS=WITH_CALDAV)
def test_writes_to_a_remote_calendar_go_to_its_provider_and_the_rest_to_the_store() -> None:
    user, work = user_with_calendar("ann")
    team = _team(user)
    router = provider_for(user)

    mine = router.create_event(calendar_id=str(work.pk), data=_data("Mine", 9))
    theirs = router.create_event(calendar_id=str(team.pk), data=_data("Team standup", 10))
    router.update_event(event_id=theirs.event_id, data=EventData(summary="Team standup (moved)"))
    router.update_event(event_id=mine.event_id, data=EventData(summary="Mine (renamed)"))
    router.delete_event(event_id=theirs.event_id)

    assert [[w.action for w in batch] for batch in MirrorProvider.batches] == [
        ["create"],
        ["update"],
        ["delete"],
    ]
    assert [o.summary for o in router.list_occurrences(start=DAY, end=DAY + timedelta(days=1))] == [
        "Mine (renamed)"
    ]


@override_settings(CALENDAR_PROVIDERS=WITH_CALDAV)
def test_reads_of_a_remote_calendar_are_served_from_the_mirror() -> None:
    user, _ = user_with_calendar("ann")
    team = _team(user)
    _event(team, "Team standup", 10)

    listed = provider_for(user).list_occurrences(start=DAY, end=DAY + timedelta(days=1))

    assert [o.summary for o in listed] == ["Team standup"]
    assert MirrorProvider.reads == 0


@override_settings(CALENDAR_PROVIDERS=WITH_CALDAV)
def test_a_mixed_batch_is_applied_in_order_each_write_by_its_calendars_provider() -> None:
    user, work = user_with_calendar("ann")
    team = _team(user)
    standup = _event(team, "Team standup", 10)
    lunch = _event(work, "Lunch", 12)
    writes = [
        Write(action="create", calendar_id=str(work.pk), data=_data("Mine", 8)),
        Write(action="update", event_id=str(standup.pk), data=EventData(summary="Standup")),
        Write(action="create", calendar_id=str(team.pk), data=_data("Retro", 15)),
        Write(action="delete", event_id=str(lunch.pk)),
    ]

    written = provider_for(user).apply_writes(writes)

    assert [w.after.summary if w.after else None for w in written] == ["Mine", "Standup", "Retro", None]
    assert [[w.action for w in batch] for batch in MirrorProvider.batches] == [["update", "create"]]


@override_settings(CALENDAR_PROVIDERS=WITH_CALDAV)
def test_undo_of_a_deleted_remote_series_goes_back_to_its_provider() -> None:
    user, _ = user_with_calendar("ann")
    team = _team(user)
    series = _series(team, "Team standup")
    router = provider_for(user)
    [deleted] = router.apply_writes([Write(action="delete", event_id=str(series.pk), scope=Scope.SERIES)])
    assert deleted.restore_image is not None

    router.restore(image=deleted.restore_image, event_id=str(series.pk))

    assert [batch[0].action for batch in MirrorProvider.batches] == ["delete", "restore"]
    assert len(router.list_occurrences(start=DAY, end=DAY + timedelta(days=40))) == 30


@override_settings(CALENDAR_PROVIDERS=WITHOUT_CALDAV)
def test_a_write_to_a_kind_nobody_registered_is_refused_before_anything_is_written() -> None:
    user, work = user_with_calendar("ann")
    team = _team(user, kind=CalendarAccount.Kind.CALDAV)
    writes = [
        Write(action="create", calendar_id=str(work.pk), data=_data("Mine", 8)),
        Write(action="create", calendar_id=str(team.pk), data=_data("Team standup", 10)),
    ]

    with pytest.raises(UnknownProviderError, match="'caldav'"):
        provider_for(user).apply_writes(writes)

    assert not Event.objects.exists()


def test_a_calendar_the_assistant_may_not_write_is_read_but_never_written() -> None:
    user, work = user_with_calendar("ann")
    Calendar.objects.filter(pk=work.pk).update(writable=False)
    holiday = _event(work, "Holiday party", 18)
    router = provider_for(user)

    for write in (
        lambda: router.create_event(calendar_id=str(work.pk), data=_data("Mine", 8)),
        lambda: router.update_event(event_id=str(holiday.pk), data=EventData(summary="Mine now")),
        lambda: router.delete_event(event_id=str(holiday.pk)),
    ):
        with pytest.raises(PermissionDeniedError, match="'Work' is read-only"):
            write()

    assert [o.summary for o in router.list_occurrences(start=DAY, end=DAY + timedelta(days=1))] == [
        "Holiday party"
    ]


@override_settings(CALENDAR_PROVIDERS=WITH_CALDAV)
def test_the_provider_of_a_calendar_is_its_kinds() -> None:
    user, work = user_with_calendar("ann")
    team = _team(user)
    router = CalendarRouter(user)

    assert isinstance(router.provider_of(str(team.pk)), MirrorProvider)
    assert router.provider_of(str(work.pk)) is router.local
    assert router.provider_of("no-such-calendar") is router.local
