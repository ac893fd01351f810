"""The loopback Google Calendar server, exercised only through the real clients.

google-api-python-client (static discovery document, ``api_endpoint`` pointed at the server),
google-auth credentials refreshing against the server's token endpoint, and google-auth-oauthlib's
``Flow`` for the web flow.
"""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import google_auth_httplib2
import googleapiclient.http
import pytest
import requests
from google.auth.exceptions import RefreshError
from google.oauth2.credentials import Credentials
from google_auth_oauthlib.flow import Flow
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError
from oauthlib.oauth2.rfc6749.errors import AccessDeniedError, InvalidGrantError

from tests.providers.google_server import CALENDAR_SCOPE, GoogleCalendarServer

PARIS = "Europe/Paris"


@pytest.fixture
def server() -> Iterator[GoogleCalendarServer]:
    with GoogleCalendarServer(time_zone=PARIS) as srv:
        yield srv


def make_service(server: GoogleCalendarServer, credentials: Any = None, endpoint: str | None = None) -> Any:
    if credentials is None:
        credentials = Credentials(
            token=None,
            refresh_token=server.issue_refresh_token(),
            token_uri=server.token_uri,
            client_id=server.client_id,
            client_secret=server.client_secret,
        )
    return build(
        "calendar",
        "v3",
        credentials=credentials,
        static_discovery=True,
        client_options={"api_endpoint": endpoint or server.url},
    )


@pytest.fixture
def service(server: GoogleCalendarServer) -> Any:
    return make_service(server)


def timed(start: str, end: str, zone: str | None = PARIS, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"start": {"dateTime": start}, "end": {"dateTime": end}, **extra}
    if zone:
        body["start"]["timeZone"] = zone
        body["end"]["timeZone"] = zone
    return body


def error_reason(exc: HttpError) -> str:
    return exc.error_details[0]["reason"]


def no_sleep(request: Any) -> Any:
    request._sleep = lambda seconds: None
    return request


# ------------------------------------------------------------------ client wiring


@pytest.mark.parametrize("which", ["url", "api_endpoint"])
def test_real_client_reaches_server_with_api_endpoint(server: GoogleCalendarServer, which: str) -> None:
    service = make_service(server, endpoint=getattr(server, which))
    listing = service.calendarList().list().execute()
    assert listing["kind"] == "calendar#calendarList"
    assert [(item["id"], item.get("primary"), item["accessRole"]) for item in listing["items"]] == [
        ("user@example.com", True, "owner")
    ]
    calendar = service.calendars().get(calendarId="primary").execute()
    assert calendar["id"] == "user@example.com"
    assert calendar["timeZone"] == PARIS
    expected_path = "/calendars/primary" if which == "url" else "/calendar/v3/calendars/primary"
    assert server.requests(op="calendars.get")[0].path == expected_path


def test_unknown_calendar_and_event_are_404(service: Any) -> None:
    with pytest.raises(HttpError) as exc:
        service.events().list(calendarId="nobody@example.com").execute()
    assert exc.value.status_code == 404
    with pytest.raises(HttpError) as exc:
        service.events().get(calendarId="primary", eventId="abcdefghij").execute()
    assert error_reason(exc.value) == "notFound"


# ------------------------------------------------------------------ events, etags, ids


def test_insert_get_patch_update_delete_with_etags(server: GoogleCalendarServer, service: Any) -> None:
    events = service.events()
    created = events.insert(
        calendarId="primary",
        body=timed("2024-05-06T09:00:00", "2024-05-06T10:00:00", summary="Standup"),
        sendUpdates="all",
    ).execute()
    assert created["kind"] == "calendar#event"
    assert created["status"] == "confirmed"
    assert created["start"] == {"dateTime": "2024-05-06T09:00:00+02:00", "timeZone": PARIS}
    assert len(created["id"]) == 26
    first_etag = created["etag"]
    assert events.get(calendarId="primary", eventId=created["id"]).execute()["etag"] == first_etag

    request = events.patch(calendarId="primary", eventId=created["id"], body={"summary": "Daily standup"})
    request.headers["If-Match"] = first_etag
    patched = request.execute()
    assert patched["summary"] == "Daily standup"
    assert patched["start"]["timeZone"] == PARIS  # patch merges objects
    assert patched["etag"] != first_etag
    assert server.requests(op="events.patch")[-1].if_match == first_etag

    stale = events.patch(calendarId="primary", eventId=created["id"], body={"summary": "Overwrite"})
    stale.headers["If-Match"] = first_etag
    with pytest.raises(HttpError) as exc:
        stale.execute()
    assert exc.value.status_code == 412
    assert error_reason(exc.value) == "conditionNotMet"
    assert server.stored_event("primary", created["id"])["summary"] == "Daily standup"  # type: ignore[index]

    replace = events.update(
        calendarId="primary",
        eventId=created["id"],
        body=timed("2024-05-06T11:00:00", "2024-05-06T12:00:00", summary="Moved"),
    )
    replace.headers["If-Match"] = patched["etag"]
    updated = replace.execute()
    assert updated["summary"] == "Moved"
    assert updated["sequence"] == 1  # the time changed
    assert updated["etag"] not in (first_etag, patched["etag"])

    stale_delete = events.delete(calendarId="primary", eventId=created["id"])
    stale_delete.headers["If-Match"] = patched["etag"]
    with pytest.raises(HttpError) as exc:
        stale_delete.execute()
    assert exc.value.status_code == 412

    delete = events.delete(calendarId="primary", eventId=created["id"], sendUpdates="none")
    delete.headers["If-Match"] = updated["etag"]
    assert delete.execute() == ""
    assert events.get(calendarId="primary", eventId=created["id"]).execute()["status"] == "cancelled"
    with pytest.raises(HttpError) as exc:
        events.delete(calendarId="primary", eventId=created["id"]).execute()
    assert exc.value.status_code == 410

    assert events.list(calendarId="primary").execute()["items"] == []
    deleted = events.list(calendarId="primary", showDeleted=True).execute()["items"]
    assert [(item["id"], item["status"]) for item in deleted] == [(created["id"], "cancelled")]
    assert [(op, value) for op, _, _, value in server.sent_updates] == [
        ("events.insert", "all"),
        ("events.patch", None),
        ("events.update", None),
        ("events.delete", "none"),
    ]


def test_deleted_event_restored_by_patching_status(service: Any) -> None:
    events = service.events()
    created = events.insert(
        calendarId="primary", body=timed("2024-05-06T09:00:00", "2024-05-06T10:00:00")
    ).execute()
    events.delete(calendarId="primary", eventId=created["id"]).execute()
    restored = events.patch(
        calendarId="primary", eventId=created["id"], body={"status": "confirmed"}
    ).execute()
    assert restored["status"] == "confirmed"
    assert [item["id"] for item in events.list(calendarId="primary").execute()["items"]] == [created["id"]]


@pytest.mark.parametrize("bad_id", ["abcd", "ABCDEF", "abcdwxyz", "abc_def12", "abc-def12", "a" * 1025])
def test_client_chosen_id_must_be_base32hex(service: Any, bad_id: str) -> None:
    body = {"id": bad_id, **timed("2024-05-06T09:00:00", "2024-05-06T10:00:00")}
    with pytest.raises(HttpError) as exc:
        service.events().insert(calendarId="primary", body=body).execute()
    assert exc.value.status_code == 400
    assert error_reason(exc.value) == "invalid"


def test_client_chosen_id_and_409_on_duplicate_even_after_delete(service: Any) -> None:
    events = service.events()
    body = {"id": "0v9a8b7c6d", **timed("2024-05-06T09:00:00", "2024-05-06T10:00:00")}
    assert events.insert(calendarId="primary", body=body).execute()["id"] == "0v9a8b7c6d"
    with pytest.raises(HttpError) as exc:
        events.insert(calendarId="primary", body=body).execute()
    assert exc.value.status_code == 409
    assert error_reason(exc.value) == "duplicate"
    events.delete(calendarId="primary", eventId="0v9a8b7c6d").execute()
    with pytest.raises(HttpError) as exc:
        events.insert(calendarId="primary", body=body).execute()
    assert exc.value.status_code == 409


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (timed("2024-05-06T09:00:00", "2024-05-06T10:00:00", zone=None), "required"),
        (timed("2024-05-06T10:00:00+02:00", "2024-05-06T09:00:00+02:00", zone=None), "timeRangeEmpty"),
        ({"start": {"date": "2024-05-06"}, "end": {"dateTime": "2024-05-07T00:00:00Z"}}, "invalid"),
        ({"start": {"date": "2024-05-06"}, "end": {"date": "2024-05-06"}}, "timeRangeEmpty"),
        (
            timed("2024-05-06T09:00:00Z", "2024-05-06T10:00:00Z", zone=None, recurrence=["RRULE:FREQ=DAILY"]),
            "required",
        ),
        (timed("2024-05-06T09:00:00", "2024-05-06T10:00:00", recurrence=["RRULE:FREQ=SOMETIMES"]), "invalid"),
        (timed("2024-05-06T09:00:00", "2024-05-06T10:00:00", zone="Mars/Olympus"), "invalid"),
    ],
)
def test_times_are_validated_as_google_does(service: Any, body: dict[str, Any], reason: str) -> None:
    with pytest.raises(HttpError) as exc:
        service.events().insert(calendarId="primary", body=body).execute()
    assert exc.value.status_code == 400
    assert error_reason(exc.value) == reason


def test_offset_datetime_without_zone_is_rendered_in_calendar_zone(service: Any) -> None:
    created = (
        service.events()
        .insert(calendarId="primary", body=timed("2024-01-10T08:00:00Z", "2024-01-10T09:00:00Z", zone=None))
        .execute()
    )
    assert created["start"] == {"dateTime": "2024-01-10T09:00:00+01:00"}


def test_all_day_events_have_exclusive_end_dates(server: GoogleCalendarServer, service: Any) -> None:
    events = service.events()
    holiday = events.insert(
        calendarId="primary",
        body={"summary": "Holiday", "start": {"date": "2024-05-08"}, "end": {"date": "2024-05-09"}},
    ).execute()
    assert holiday["start"] == {"date": "2024-05-08"}
    assert holiday["end"] == {"date": "2024-05-09"}

    def listed(time_min: str, time_max: str) -> list[str]:
        items = events.list(calendarId="primary", timeMin=time_min, timeMax=time_max).execute()["items"]
        return [item["summary"] for item in items]

    # The day is midnight to midnight in the calendar's zone (Paris, +02:00 in May).
    assert listed("2024-05-08T00:00:00+02:00", "2024-05-08T00:30:00+02:00") == ["Holiday"]
    assert listed("2024-05-07T00:00:00+02:00", "2024-05-08T00:00:00+02:00") == []  # not a day early
    assert listed("2024-05-09T00:00:00+02:00", "2024-05-10T00:00:00+02:00") == []  # end is exclusive
    assert listed("2024-05-08T21:59:00Z", "2024-05-08T23:00:00Z") == ["Holiday"]
    with pytest.raises(HttpError) as exc:
        events.list(calendarId="primary", timeMin="2024-05-08T00:00:00").execute()  # no offset
    assert exc.value.status_code == 400


def test_list_paging_and_sync_token_on_last_page(service: Any) -> None:
    events = service.events()
    for day in range(1, 8):
        body = timed(f"2024-06-0{day}T09:00:00", f"2024-06-0{day}T10:00:00", summary=f"day {day}")
        events.insert(calendarId="primary", body=body).execute()
    pages, token = [], None
    while True:
        page = events.list(calendarId="primary", maxResults=3, pageToken=token).execute()
        pages.append(page)
        token = page.get("nextPageToken")
        if not token:
            break
    assert [len(page["items"]) for page in pages] == [3, 3, 1]
    assert ["nextSyncToken" in page for page in pages] == [False, False, True]
    assert [item["summary"] for page in pages for item in page["items"]] == [f"day {d}" for d in range(1, 8)]
    ordered = events.list(calendarId="primary", singleEvents=True, orderBy="startTime", q="day 7").execute()
    assert [item["summary"] for item in ordered["items"]] == ["day 7"]
    with pytest.raises(HttpError) as exc:
        events.list(calendarId="primary", orderBy="startTime").execute()  # only with singleEvents
    assert exc.value.status_code == 400


def test_private_extended_property_filter(service: Any) -> None:
    events = service.events()
    body = timed("2024-06-01T09:00:00", "2024-06-01T10:00:00")
    events.insert(
        calendarId="primary", body={**body, "extendedProperties": {"private": {"op": "42"}}}
    ).execute()
    events.insert(calendarId="primary", body=body).execute()
    found = events.list(calendarId="primary", privateExtendedProperty="op=42").execute()["items"]
    assert [item["extendedProperties"]["private"]["op"] for item in found] == ["42"]


# ------------------------------------------------------------------ sync tokens


def test_sync_token_incremental_changes_and_410(server: GoogleCalendarServer, service: Any) -> None:
    events = service.events()
    keep = events.insert(
        calendarId="primary", body=timed("2024-06-03T09:00:00", "2024-06-03T10:00:00")
    ).execute()
    gone = events.insert(
        calendarId="primary", body=timed("2024-06-04T09:00:00", "2024-06-04T10:00:00")
    ).execute()
    full = events.list(calendarId="primary").execute()
    assert len(full["items"]) == 2
    token = full["nextSyncToken"]

    assert events.list(calendarId="primary", syncToken=token).execute()["items"] == []
    events.patch(calendarId="primary", eventId=keep["id"], body={"summary": "changed"}).execute()
    events.delete(calendarId="primary", eventId=gone["id"]).execute()
    added = events.insert(
        calendarId="primary", body=timed("2024-06-05T09:00:00", "2024-06-05T10:00:00")
    ).execute()
    server.edit_event(added["id"], {"location": "elsewhere"})  # another device

    delta = events.list(calendarId="primary", syncToken=token).execute()
    by_id = {item["id"]: item for item in delta["items"]}
    assert set(by_id) == {keep["id"], gone["id"], added["id"]}
    assert by_id[keep["id"]]["summary"] == "changed"
    assert by_id[gone["id"]]["status"] == "cancelled"
    assert by_id[added["id"]]["location"] == "elsewhere"
    next_token = delta["nextSyncToken"]
    assert events.list(calendarId="primary", syncToken=next_token).execute()["items"] == []

    for forbidden in ({"timeMin": "2024-06-01T00:00:00Z"}, {"timeMax": "2024-07-01T00:00:00Z"}, {"q": "x"}):
        with pytest.raises(HttpError) as exc:
            events.list(calendarId="primary", syncToken=next_token, **forbidden).execute()
        assert exc.value.status_code == 400

    server.expire_next_sync_token()
    with pytest.raises(HttpError) as exc:
        events.list(calendarId="primary", syncToken=next_token).execute()
    assert exc.value.status_code == 410
    assert error_reason(exc.value) == "fullSyncRequired"
    with pytest.raises(HttpError) as exc:  # that token stays dead
        events.list(calendarId="primary", syncToken=next_token).execute()
    assert exc.value.status_code == 410

    resync = events.list(calendarId="primary").execute()
    assert {item["id"] for item in resync["items"]} == {keep["id"], added["id"]}
    server.invalidate_sync_tokens()
    with pytest.raises(HttpError) as exc:
        events.list(calendarId="primary", syncToken=resync["nextSyncToken"]).execute()
    assert exc.value.status_code == 410


def test_incremental_sync_pages(service: Any) -> None:
    events = service.events()
    token = events.list(calendarId="primary").execute()["nextSyncToken"]
    for day in range(1, 6):
        events.insert(
            calendarId="primary", body=timed(f"2024-06-0{day}T09:00:00", f"2024-06-0{day}T10:00:00")
        ).execute()
    first = events.list(calendarId="primary", syncToken=token, maxResults=3).execute()
    assert len(first["items"]) == 3
    assert "nextSyncToken" not in first
    second = events.list(
        calendarId="primary", syncToken=token, maxResults=3, pageToken=first["nextPageToken"]
    ).execute()
    assert len(second["items"]) == 2
    assert second["nextSyncToken"]


# ------------------------------------------------------------------ recurrence


def weekly_series(service: Any, **extra: Any) -> dict[str, Any]:
    body = timed(
        "2024-03-18T09:00:00",
        "2024-03-18T10:00:00",
        summary="Class",
        recurrence=["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=6", "EXDATE;TZID=Europe/Paris:20240401T090000"],
        **extra,
    )
    return service.events().insert(calendarId="primary", body=body).execute()


def test_instances_expand_across_dst_with_exdate(service: Any) -> None:
    master = weekly_series(service)
    instances = service.events().instances(calendarId="primary", eventId=master["id"]).execute()["items"]
    assert [item["start"]["dateTime"] for item in instances] == [
        "2024-03-18T09:00:00+01:00",
        "2024-03-25T09:00:00+01:00",
        "2024-04-08T09:00:00+02:00",  # 1 April excluded; summer time from 31 March
        "2024-04-15T09:00:00+02:00",
        "2024-04-22T09:00:00+02:00",
    ]
    first = instances[0]
    assert first["id"] == f"{master['id']}_20240318T080000Z"
    assert first["recurringEventId"] == master["id"]
    assert first["originalStartTime"] == {"dateTime": "2024-03-18T09:00:00+01:00", "timeZone": PARIS}
    assert "recurrence" not in first
    got = service.events().get(calendarId="primary", eventId=instances[2]["id"]).execute()
    assert got["start"] == instances[2]["start"]


def test_patching_an_instance_creates_an_exception(server: GoogleCalendarServer, service: Any) -> None:
    events = service.events()
    master = weekly_series(service)
    token = events.list(calendarId="primary").execute()["nextSyncToken"]
    instances = events.instances(calendarId="primary", eventId=master["id"]).execute()["items"]
    second, third = instances[1], instances[2]

    move = events.patch(
        calendarId="primary",
        eventId=second["id"],
        body={
            "start": {"dateTime": "2024-03-26T14:00:00+01:00"},
            "end": {"dateTime": "2024-03-26T15:00:00+01:00"},
        },
    )
    move.headers["If-Match"] = second["etag"]
    moved = move.execute()
    assert moved["id"] == second["id"]
    assert moved["recurringEventId"] == master["id"]
    assert moved["originalStartTime"] == second["originalStartTime"]

    cancel = events.patch(calendarId="primary", eventId=third["id"], body={"status": "cancelled"})
    cancel.headers["If-Match"] = third["etag"]
    cancel.execute()

    after = events.instances(calendarId="primary", eventId=master["id"]).execute()["items"]
    assert [item["start"]["dateTime"] for item in after] == [
        "2024-03-18T09:00:00+01:00",
        "2024-03-26T14:00:00+01:00",
        "2024-04-15T09:00:00+02:00",
        "2024-04-22T09:00:00+02:00",
    ]
    expanded = events.list(
        calendarId="primary",
        singleEvents=True,
        orderBy="startTime",
        timeMin="2024-03-26T00:00:00+01:00",
        timeMax="2024-04-09T00:00:00+02:00",
    ).execute()["items"]
    assert [item["id"] for item in expanded] == [second["id"]]

    # Without singleEvents: the master, the moved exception and (even without showDeleted) the cancelled one.
    raw = events.list(calendarId="primary").execute()["items"]
    assert [(item["id"], item["status"]) for item in raw] == [
        (master["id"], "confirmed"),
        (second["id"], "confirmed"),
        (third["id"], "cancelled"),
    ]
    assert raw[2]["originalStartTime"] == third["originalStartTime"]

    delta = events.list(calendarId="primary", syncToken=token).execute()["items"]
    assert {item["id"]: item["status"] for item in delta} == {
        second["id"]: "confirmed",
        third["id"]: "cancelled",
    }

    # This-and-following: UNTIL on the master cancels the exception that falls after it.
    truncated = events.patch(
        calendarId="primary",
        eventId=master["id"],
        body={"recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20240319T000000Z"]},
    ).execute()
    assert truncated["sequence"] == 1
    left = events.instances(calendarId="primary", eventId=master["id"]).execute()["items"]
    assert [item["id"] for item in left] == [instances[0]["id"]]
    assert server.stored_event("primary", second["id"])["status"] == "cancelled"  # type: ignore[index]


def test_deleting_an_instance_and_the_master(service: Any) -> None:
    events = service.events()
    master = weekly_series(service)
    first = events.instances(calendarId="primary", eventId=master["id"]).execute()["items"][0]
    events.delete(calendarId="primary", eventId=first["id"]).execute()
    remaining = events.instances(calendarId="primary", eventId=master["id"]).execute()["items"]
    assert first["id"] not in [item["id"] for item in remaining]
    with_deleted = events.instances(calendarId="primary", eventId=master["id"], showDeleted=True).execute()
    assert with_deleted["items"][0]["status"] == "cancelled"
    events.delete(calendarId="primary", eventId=master["id"]).execute()
    assert events.list(calendarId="primary", singleEvents=True).execute()["items"] == []
    with pytest.raises(HttpError) as exc:
        events.get(calendarId="primary", eventId=f"{master['id']}_20990101T000000Z").execute()
    assert exc.value.status_code == 404


def test_all_day_recurring_instances(service: Any) -> None:
    body = {
        "summary": "Bins",
        "start": {"date": "2024-05-06"},
        "end": {"date": "2024-05-07"},
        "recurrence": ["RRULE:FREQ=WEEKLY;UNTIL=20240520"],
    }
    master = service.events().insert(calendarId="primary", body=body).execute()
    items = service.events().instances(calendarId="primary", eventId=master["id"]).execute()["items"]
    assert [(item["id"][-8:], item["start"], item["end"]) for item in items] == [
        ("20240506", {"date": "2024-05-06"}, {"date": "2024-05-07"}),
        ("20240513", {"date": "2024-05-13"}, {"date": "2024-05-14"}),
        ("20240520", {"date": "2024-05-20"}, {"date": "2024-05-21"}),
    ]
    assert items[0]["originalStartTime"] == {"date": "2024-05-06"}


# ------------------------------------------------------------------ batch


def test_batch_of_50_patches_is_one_http_request(server: GoogleCalendarServer, service: Any) -> None:
    body = timed("2024-09-02T16:00:00", "2024-09-02T17:00:00", summary="Lesson")
    body["recurrence"] = ["RRULE:FREQ=DAILY;COUNT=50"]
    master = service.events().insert(calendarId="primary", body=body).execute()
    instances = (
        service.events().instances(calendarId="primary", eventId=master["id"], maxResults=50).execute()
    )
    assert len(instances["items"]) == 50
    server.reset_log()

    results: dict[str, Any] = {}
    batch = googleapiclient.http.BatchHttpRequest(
        callback=lambda request_id, response, exception: results.__setitem__(
            request_id, (response, exception)
        ),
        batch_uri=server.batch_uri,
    )
    for instance in instances["items"]:
        request = service.events().patch(
            calendarId="primary",
            eventId=instance["id"],
            body={
                "start": {"dateTime": instance["start"]["dateTime"].replace("T16", "T17")},
                "end": {"dateTime": instance["end"]["dateTime"].replace("T17", "T18")},
            },
            sendUpdates="none",
        )
        request.headers["If-Match"] = instance["etag"]
        batch.add(request)
    batch.execute()

    assert server.api_http_requests == 1
    assert server.counters["batch_http"] == 1
    assert server.counters["calls"] == 50
    assert all(exception is None for _, exception in results.values())
    assert {response["start"]["dateTime"][11:16] for response, _ in results.values()} == {"17:00"}
    parts = server.requests(op="events.patch", in_batch=True)
    assert len(parts) == 50
    assert all(part.if_match for part in parts)
    moved = service.events().list(calendarId="primary", singleEvents=True, maxResults=100).execute()["items"]
    assert {item["start"]["dateTime"][11:16] for item in moved} == {"17:00"}

    too_many = googleapiclient.http.BatchHttpRequest(batch_uri=server.batch_uri)
    for _ in range(51):
        too_many.add(service.events().get(calendarId="primary", eventId=master["id"]))
    with pytest.raises(HttpError) as exc:
        too_many.execute()
    assert exc.value.status_code == 400


def test_faults_apply_to_batch_parts(server: GoogleCalendarServer, service: Any) -> None:
    server.fail_write(nth=3)
    results: dict[str, Any] = {}
    batch = server.new_batch(lambda rid, response, exception: results.__setitem__(rid, exception))
    for day in range(1, 6):
        body = {"id": f"batch{day}0000", **timed(f"2024-06-0{day}T09:00:00", f"2024-06-0{day}T10:00:00")}
        batch.add(service.events().insert(calendarId="primary", body=body), request_id=str(day))
    batch.execute()
    assert results["3"] is not None
    assert results["3"].status_code == 500
    assert [results[str(day)] for day in (1, 2, 4, 5)] == [None] * 4
    assert sorted(event["id"] for event in server.stored_events()) == [
        "batch10000",
        "batch20000",
        "batch40000",
        "batch50000",
    ]


# ------------------------------------------------------------------ free/busy


def test_freebusy_merges_and_clips_busy_intervals(server: GoogleCalendarServer, service: Any) -> None:
    server.add_account("ann@example.com", time_zone="Europe/London")
    server.seed_event(
        timed("2024-06-03T09:00:00", "2024-06-03T10:00:00", zone="Europe/London"), "ann@example.com"
    )
    server.seed_event(
        timed("2024-06-03T09:30:00", "2024-06-03T11:00:00", zone="Europe/London"), "ann@example.com"
    )
    server.seed_event(
        timed("2024-06-03T13:00:00", "2024-06-03T14:00:00", zone="Europe/London", transparency="transparent"),
        "ann@example.com",
    )
    service.events().insert(
        calendarId="primary",
        body=timed("2024-06-01T07:00:00", "2024-06-01T08:00:00", recurrence=["RRULE:FREQ=DAILY;COUNT=5"]),
    ).execute()
    service.events().insert(
        calendarId="primary", body={"start": {"date": "2024-06-04"}, "end": {"date": "2024-06-05"}}
    ).execute()
    answer = (
        service.freebusy()
        .query(
            body={
                "timeMin": "2024-06-03T00:00:00Z",
                "timeMax": "2024-06-04T12:00:00Z",
                "items": [{"id": "ann@example.com"}, {"id": "primary"}, {"id": "ghost@example.com"}],
            }
        )
        .execute()
    )
    assert answer["kind"] == "calendar#freeBusy"
    assert answer["calendars"]["ann@example.com"]["busy"] == [
        {"start": "2024-06-03T08:00:00Z", "end": "2024-06-03T10:00:00Z"}
    ]
    assert answer["calendars"]["primary"]["busy"] == [
        {"start": "2024-06-03T05:00:00Z", "end": "2024-06-03T06:00:00Z"},
        # 4 June: the 07:00 Paris occurrence falls inside the all-day event (Paris midnight to midnight).
        {"start": "2024-06-03T22:00:00Z", "end": "2024-06-04T12:00:00Z"},
    ]
    assert answer["calendars"]["ghost@example.com"] == {
        "errors": [{"domain": "global", "reason": "notFound"}],
        "busy": [],
    }


# ------------------------------------------------------------------ injected faults


def test_500_on_the_third_of_five_writes(server: GoogleCalendarServer, service: Any) -> None:
    server.fail_write(nth=3)
    outcomes = []
    for day in range(1, 6):
        body = timed(f"2024-06-0{day}T09:00:00", f"2024-06-0{day}T10:00:00", summary=str(day))
        try:
            service.events().insert(calendarId="primary", body=body).execute()
            outcomes.append("ok")
        except HttpError as exc:
            outcomes.append(exc.status_code)
    assert outcomes == ["ok", "ok", 500, "ok", "ok"]
    assert [event["summary"] for event in server.stored_events()] == ["1", "2", "4", "5"]
    assert not server.pending_faults


def test_500_after_commit_still_applies_the_write(server: GoogleCalendarServer, service: Any) -> None:
    server.fail_write(after_commit=True)
    with pytest.raises(HttpError) as exc:
        service.events().insert(
            calendarId="primary", body=timed("2024-06-01T09:00:00", "2024-06-01T10:00:00")
        ).execute()
    assert exc.value.status_code == 500
    assert len(server.stored_events()) == 1


def test_429_carries_retry_after(server: GoogleCalendarServer, service: Any) -> None:
    server.rate_limit(retry_after=7)
    with pytest.raises(HttpError) as exc:
        service.calendarList().list().execute()
    assert exc.value.status_code == 429
    assert exc.value.resp["retry-after"] == "7"
    assert exc.value.error_details[0] == {
        "domain": "usageLimits",
        "reason": "rateLimitExceeded",
        "message": "Rate Limit Exceeded",
    }
    assert service.calendarList().list().execute()["items"]  # once only


def test_403_rate_limit_is_retryable_for_the_client_but_other_403s_are_not(
    server: GoogleCalendarServer, service: Any
) -> None:
    server.rate_limit(status=403, reason="userRateLimitExceeded", on="write")
    with pytest.raises(HttpError) as exc:
        service.events().insert(
            calendarId="primary", body=timed("2024-06-01T09:00:00", "2024-06-01T10:00:00")
        ).execute()
    assert exc.value.status_code == 403
    assert error_reason(exc.value) == "userRateLimitExceeded"

    # googleapiclient's own retry logic recognises Google's rate-limit 403 from the JSON reason...
    server.rate_limit(status=403, reason="rateLimitExceeded")
    request = no_sleep(service.calendarList().list())
    assert request.execute(num_retries=1)["items"]
    # ...and does not retry a plain 403.
    server.inject(status=403, reason="forbidden", message="Forbidden")
    with pytest.raises(HttpError) as exc:
        no_sleep(service.calendarList().list()).execute(num_retries=3)
    assert error_reason(exc.value) == "forbidden"
    assert server.counters["op:calendarList.list"] == 3


def test_lost_response_after_committed_insert(server: GoogleCalendarServer, service: Any) -> None:
    body = {"id": "lost0000001", **timed("2024-06-01T09:00:00", "2024-06-01T10:00:00")}
    server.lose_response()
    # httplib2 resends once when the answer never came: the retry of the committed insert meets 409.
    with pytest.raises(HttpError) as exc:
        service.events().insert(calendarId="primary", body=body).execute()
    assert exc.value.status_code == 409
    assert [entry.status for entry in server.requests(op="events.insert")] == [None, 409]
    assert [event["id"] for event in server.stored_events()] == ["lost0000001"]

    server.lose_response(times=2)  # the resend is lost too: the client sees the broken connection
    with pytest.raises(http.client.RemoteDisconnected):
        service.events().insert(
            calendarId="primary",
            body={"id": "lost0000002", **timed("2024-06-02T09:00:00", "2024-06-02T10:00:00")},
        ).execute()
    assert [event["id"] for event in server.stored_events()] == ["lost0000001", "lost0000002"]

    server.lose_response()  # without a client-chosen id the silent resend makes a duplicate
    service.events().insert(
        calendarId="primary", body=timed("2024-06-03T09:00:00", "2024-06-03T10:00:00")
    ).execute()
    assert len(server.stored_events()) == 4


# ------------------------------------------------------------------ OAuth


def test_token_refresh_and_expired_access_token(server: GoogleCalendarServer, service: Any) -> None:
    service.calendarList().list().execute()
    assert server.counters["token"] == 1
    server.expire_access_tokens()
    service.calendarList().list().execute()  # 401, refresh, retry: invisible to the caller
    assert server.counters["token"] == 2
    assert [entry.status for entry in server.requests(op="calendarList.list")] == [200, 401, 200]


def test_revoked_refresh_token_is_invalid_grant(server: GoogleCalendarServer) -> None:
    refresh_token = server.issue_refresh_token()
    credentials = Credentials(
        token=None,
        refresh_token=refresh_token,
        token_uri=server.token_uri,
        client_id=server.client_id,
        client_secret=server.client_secret,
    )
    service = make_service(server, credentials)
    service.calendarList().list().execute()
    server.revoke_refresh_token(refresh_token)  # its access tokens die with it
    with pytest.raises(RefreshError) as exc:
        service.calendarList().list().execute()
    assert "invalid_grant" in str(exc.value)
    assert exc.value.args[1]["error"] == "invalid_grant"


def test_unknown_bearer_token_is_401(server: GoogleCalendarServer) -> None:
    credentials = Credentials(token="ya29.forged")
    http = google_auth_httplib2.AuthorizedHttp(credentials, refresh_status_codes=())
    service = build(
        "calendar", "v3", http=http, static_discovery=True, client_options={"api_endpoint": server.url}
    )
    with pytest.raises(HttpError) as exc:
        service.calendarList().list().execute()
    assert exc.value.status_code == 401
    assert error_reason(exc.value) == "authError"


def start_flow(server: GoogleCalendarServer, redirect_uri: str, **kwargs: str) -> tuple[Flow, str, str]:
    flow = Flow.from_client_config(
        server.client_config(redirect_uri), scopes=[CALENDAR_SCOPE], redirect_uri=redirect_uri
    )
    url, state = flow.authorization_url(**kwargs)
    consent = requests.get(url, allow_redirects=False, timeout=5)
    assert consent.status_code == 302
    return flow, state, consent.headers["Location"]


def test_web_flow_with_pkce(server: GoogleCalendarServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OAUTHLIB_INSECURE_TRANSPORT", "1")  # oauthlib insists on https otherwise
    redirect_uri = "http://testserver/accounts/google/callback"
    flow, state, callback = start_flow(server, redirect_uri, access_type="offline", prompt="consent")
    assert callback.startswith(redirect_uri + "?")
    assert parse_qs(urlsplit(callback).query)["state"] == [state]
    asked = server.consents[-1]
    assert (asked["access_type"], asked["prompt"], asked["code_challenge_method"]) == (
        "offline",
        "consent",
        "S256",
    )

    # The callback runs in another request: state and verifier restored from server-side storage.
    restored = Flow.from_client_config(
        server.client_config(redirect_uri),
        scopes=[CALENDAR_SCOPE],
        redirect_uri=redirect_uri,
        state=state,
        code_verifier=flow.code_verifier,
    )
    restored.fetch_token(authorization_response=callback)
    credentials = restored.credentials
    assert credentials.refresh_token
    assert credentials.token_uri == server.token_uri
    service = make_service(server, credentials)
    assert service.calendarList().list().execute()["items"][0]["id"] == "user@example.com"
    server.expire_access_tokens()
    assert service.calendarList().list().execute()["items"]  # refreshed with the flow's refresh token

    # The code is single-use; a wrong verifier is refused.
    with pytest.raises(InvalidGrantError):
        restored.fetch_token(authorization_response=callback)
    _, state2, callback2 = start_flow(server, redirect_uri, access_type="offline", prompt="consent")
    wrong = Flow.from_client_config(
        server.client_config(redirect_uri),
        scopes=[CALENDAR_SCOPE],
        redirect_uri=redirect_uri,
        state=state2,
        code_verifier="x" * 64,
    )
    with pytest.raises(InvalidGrantError):
        wrong.fetch_token(authorization_response=callback2)

    # Without prompt=consent a returning user gets no new refresh token.
    flow3, _, callback3 = start_flow(server, redirect_uri, access_type="offline")
    flow3.fetch_token(authorization_response=callback3)
    assert flow3.credentials.refresh_token is None


def test_web_flow_denied(server: GoogleCalendarServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OAUTHLIB_INSECURE_TRANSPORT", "1")
    server.deny_next_consent()
    redirect_uri = "http://testserver/accounts/google/callback"
    flow, state, callback = start_flow(server, redirect_uri, access_type="offline", prompt="consent")
    assert parse_qs(urlsplit(callback).query) == {"error": ["access_denied"], "state": [state]}
    with pytest.raises(AccessDeniedError):
        flow.fetch_token(authorization_response=callback)


def test_service_batch_helper_ignores_api_endpoint(server: GoogleCalendarServer, service: Any) -> None:
    """Pins the client quirk the module docstring warns about (google-api-python-client#1107)."""
    assert service.new_batch_http_request()._batch_uri == "https://www.googleapis.com/batch/calendar/v3"
    assert server.new_batch()._batch_uri == server.batch_uri


def test_batch_part_faults_carry_their_own_headers(server: GoogleCalendarServer, service: Any) -> None:
    created = service.events().insert(
        calendarId="primary", body=timed("2024-06-01T09:00:00", "2024-06-01T10:00:00")
    )
    event = created.execute()
    server.rate_limit(on="events.patch", nth=2, retry_after=3)
    results: dict[str, Any] = {}
    batch = server.new_batch(lambda rid, response, exception: results.__setitem__(rid, exception))
    for n in range(3):
        batch.add(service.events().patch(calendarId="primary", eventId=event["id"], body={"summary": str(n)}))
    batch.execute()
    assert results["1"] is None
    assert results["3"] is None
    assert results["2"].status_code == 429
    assert results["2"].resp["retry-after"] == "3"


def test_batch_parts_refused_with_401_are_redone_after_a_refresh(
    server: GoogleCalendarServer, service: Any
) -> None:
    service.calendarList().list().execute()
    server.expire_access_tokens()
    server.reset_log()
    results: dict[str, Any] = {}
    batch = server.new_batch(lambda rid, response, exception: results.__setitem__(rid, (response, exception)))
    for n in range(3):
        body = timed(f"2024-06-0{n + 1}T09:00:00", f"2024-06-0{n + 1}T10:00:00")
        batch.add(service.events().insert(calendarId="primary", body=body))
    batch.execute()
    assert all(exception is None for _, exception in results.values())
    assert server.counters["batch_http"] == 2  # the real client resends the 401 parts in a second batch
    assert server.counters["token"] == 1
    assert len(server.stored_events()) == 3


def test_scopes_and_access_roles_are_enforced(server: GoogleCalendarServer) -> None:
    readonly = make_service(server, server.credentials(scopes=[CALENDAR_SCOPE + ".readonly"]))
    assert readonly.events().list(calendarId="primary").execute()["items"] == []
    with pytest.raises(HttpError) as exc:
        readonly.events().insert(
            calendarId="primary", body=timed("2024-06-01T09:00:00", "2024-06-01T10:00:00")
        ).execute()
    assert exc.value.status_code == 403
    assert error_reason(exc.value) == "insufficientPermissions"

    shared = server.add_calendar(summary="Team", role="reader")
    service = make_service(server)
    assert {item["id"]: item["accessRole"] for item in service.calendarList().list().execute()["items"]} == {
        "user@example.com": "owner",
        shared: "reader",
    }
    with pytest.raises(HttpError) as exc:
        service.events().insert(
            calendarId=shared, body=timed("2024-06-01T09:00:00", "2024-06-01T10:00:00")
        ).execute()
    assert exc.value.status_code == 403
    assert error_reason(exc.value) == "requiredAccessLevel"


def test_revoke_endpoint_ends_the_grant(server: GoogleCalendarServer) -> None:
    credentials = server.credentials()
    service = make_service(server, credentials)
    service.calendarList().list().execute()
    answer = requests.post(server.revoke_uri, params={"token": credentials.refresh_token}, timeout=5)
    assert answer.status_code == 200
    with pytest.raises(HttpError) as exc:  # the access token died with the grant; no refresh is tried here
        build(
            "calendar",
            "v3",
            http=google_auth_httplib2.AuthorizedHttp(credentials, refresh_status_codes=()),
            static_discovery=True,
            client_options={"api_endpoint": server.url},
        ).calendarList().list().execute()
    assert exc.value.status_code == 401
    with pytest.raises(RefreshError):
        service.calendarList().list().execute()
