"""Google Calendar as a provider: reads from the mirror, writes to Google first, then the mirror.

Reads are the built-in store's (this class is a :class:`LocalProvider`): the mirror that
:mod:`skills.providers.google.sync` keeps holds every event of the account's calendars.

A batch of writes is applied like this, in one database transaction holding the account row:

1. The built-in store applies the writes to the mirror as it would to its own calendars, which
   checks every ``expected_etag``, replays an ``operation_id`` already applied, and computes the
   before-images and restore images (the built-in store's own; undo works on them unchanged).
2. What changed in the mirror (the series the writes touched, and new rows) is compared with what
   was there before, and turned into Google requests: inserts with a client-chosen base32hex id
   derived from the operation id, patches and deletes with ``If-Match`` (Google's etag, kept in the
   account's ``sync_state``), one occurrence changed or cancelled by patching the instance, a
   this-and-following change as ``UNTIL`` on the master plus an insert of the new series.  Masters
   go first, then instances, each phase in batch requests of up to 50 parts.
3. Google's answers (etags, ids of new events) are recorded, and the transaction commits.

If Google refuses a write the transaction rolls back, so the mirror never shows what Google does
not hold: 412 → :class:`ConflictError` (the mirror is re-synced, so the next read is fresh),
a revoked grant → :class:`PermissionDeniedError` with the account marked ``needs_reconnect``.
A failure after some requests of the batch succeeded is reported as such, and the calendar is
re-synced so the mirror shows what Google holds (compensation of those writes is not done yet).
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max, Q
from googleapiclient.errors import HttpError

from skills.models import Calendar, CalendarAccount, Event, new_etag
from skills.providers.base import (
    BusyInterval,
    ProviderError,
    Write,
    Written,
)
from skills.providers.google.client import (
    DuplicateError,
    GoogleClient,
    ReconnectNeededError,
    mark_needs_reconnect,
    translate,
)
from skills.providers.google.mirror import changed_fields, instance_id, is_remote_id, row_body
from skills.providers.google.sync import calendar_state, save_state, sync_calendar
from skills.providers.local import LocalProvider

__all__ = ["GoogleProvider", "event_id_for"]

SEND_UPDATES = frozenset({"all", "externalOnly", "none"})


def event_id_for(seed: str) -> str:
    """A Google event id (base32hex, 26 characters) derived from ``seed``: the same operation gets
    the same id, so an insert retried after a lost answer meets 409 rather than making a twin."""
    digest = hashlib.sha256(seed.encode("utf-8")).digest()
    return base64.b32hexencode(digest).decode("ascii").lower().rstrip("=")[:26]


@dataclasses.dataclass
class _Call:
    """One request of the plan and what to do with its answer."""

    calendar: Calendar
    kind: str  # insert | patch | delete | instance
    event_id: str
    body: dict[str, Any] | None = None
    if_match: str = ""
    row: Event | None = None  # the master row an insert/patch writes

    def request(self, client: GoogleClient, send_updates: str) -> Any:
        events = client.service.events()
        args: dict[str, Any] = {"calendarId": self.calendar.remote_id, "sendUpdates": send_updates}
        if self.kind == "insert":
            request = events.insert(body={**(self.body or {}), "id": self.event_id}, **args)
        elif self.kind == "delete":
            request = events.delete(eventId=self.event_id, **args)
        else:
            request = events.patch(eventId=self.event_id, body=self.body or {}, **args)
        if self.if_match:
            request.headers["If-Match"] = self.if_match
        return request


class GoogleProvider(LocalProvider):
    """Calendars of a user's Google accounts (see the module docstring)."""

    name = "google"

    # -- sync -------------------------------------------------------------------------------------------
    def sync(self, *, full: bool = False) -> int:
        """Mirror every Google account of the user now; returns how many events changed."""
        from skills.providers.google.sync import sync_account

        changed = 0
        for account in CalendarAccount.objects.filter(owner=self.user, kind=CalendarAccount.Kind.GOOGLE):
            changed += sync_account(account, full=full).changed  # marks the account if need be
        return changed

    # -- free/busy --------------------------------------------------------------------------------------
    def free_busy(
        self, *, emails: list[str], start: datetime, end: datetime
    ) -> dict[str, list[BusyInterval]]:
        """People of this instance from the built-in store; everyone else from Google's freebusy.query
        (through the user's first connected Google account)."""
        known = {
            e.casefold()
            for e in get_user_model().objects.filter(is_active=True).values_list("email", flat=True)
            if e
        }
        local = [e for e in emails if e.strip().casefold() in known]
        remote = [e for e in emails if e.strip() and e.strip().casefold() not in known]
        busy = super().free_busy(emails=local, start=start, end=end) if local else {}
        busy.update({e: [] for e in emails if e not in busy})
        account = (
            CalendarAccount.objects.filter(
                owner=self.user, kind=CalendarAccount.Kind.GOOGLE, status=CalendarAccount.Status.OK
            )
            .order_by("pk")
            .first()
        )
        if not remote or account is None:
            return busy
        try:
            client = GoogleClient(account)
            body = {
                "timeMin": start.astimezone(UTC).isoformat(),
                "timeMax": end.astimezone(UTC).isoformat(),
                "items": [{"id": e.strip()} for e in remote],
            }
            answer = client.execute(client.service.freebusy().query(body=body), what="Free/busy")
        except ReconnectNeededError as exc:
            mark_needs_reconnect(account, str(exc))
            raise
        found = answer.get("calendars") or {}
        for email in remote:
            entry = found.get(email.strip()) or {}
            busy[email] = [
                BusyInterval(
                    start=datetime.fromisoformat(span["start"].replace("Z", "+00:00")),
                    end=datetime.fromisoformat(span["end"].replace("Z", "+00:00")),
                )
                for span in entry.get("busy") or ()
            ]
        return busy

    # -- writes -----------------------------------------------------------------------------------------
    def apply_writes(self, writes: Sequence[Write]) -> list[Written]:
        """See the module docstring."""
        if not writes:
            return []
        progress: dict[str, Any] = {"done": 0, "calendars": set()}
        try:
            with transaction.atomic():
                return self._apply(writes, progress)
        except ReconnectNeededError as exc:
            for account in self._accounts_of(progress["calendars"]):
                mark_needs_reconnect(account, str(exc))
            raise
        except ProviderError as exc:
            if progress["calendars"]:
                self._resync(progress["calendars"])
            if progress["done"]:
                raise type(exc)(
                    f"{exc} Part of this change had already been made in Google Calendar "
                    f"({progress['done']} request(s)); your calendar now shows it as Google has it."
                ) from exc
            raise

    def _accounts_of(self, calendars: set[Calendar]) -> list[CalendarAccount]:
        return list({c.account_id: c.account for c in calendars if c.account is not None}.values())

    def _resync(self, calendars: set[Calendar]) -> None:
        """Best effort after a refusal: the mirror shows Google's current state again."""
        for calendar in calendars:
            account = CalendarAccount.objects.get(pk=calendar.account_id or 0)
            with contextlib.suppress(ProviderError):
                sync_calendar(GoogleClient(account), calendar)

    def _apply(self, writes: Sequence[Write], progress: dict[str, Any]) -> list[Written]:
        calendars = {
            c.pk: c
            for c in Calendar.objects.select_related("account").filter(
                owner=self.user, account__kind=CalendarAccount.Kind.GOOGLE
            )
        }
        accounts = {
            a.pk: a
            for a in CalendarAccount.objects.select_for_update().filter(
                pk__in={c.account_id for c in calendars.values()}
            )
        }
        for calendar in calendars.values():
            calendar.account = accounts[calendar.account_id or 0]  # the locked row, with its sync state
        masters = self._masters_named(writes)
        before = {row.pk: row for row in _rows(masters)}
        top = Event.objects.aggregate(top=Max("pk"))["top"] or 0
        written = super().apply_writes(writes)
        after_rows = Event.objects.filter(
            Q(pk__in=masters) | Q(series_id__in=masters) | Q(pk__gt=top, calendar_id__in=calendars)
        ).order_by("pk")
        after = {row.pk: row for row in after_rows}
        ops = [w.operation_id for w in writes if w.operation_id]
        send = _send_updates(writes)
        phase1, phase2 = self._plan(before, after, calendars, ops)
        progress["calendars"] = {c for call in [*phase1, *phase2] for c in [call.calendar]}
        renamed: dict[str, str] = {}
        self._run(phase1, send, progress, renamed)
        for call in phase2:  # instance ids name the master by its Google id, known only now
            master_uid = call.event_id.split("_", 1)[0]
            if master_uid in renamed:
                call.event_id = renamed[master_uid] + call.event_id[len(master_uid) :]
        self._run(phase2, send, progress, renamed)
        for account in accounts.values():
            save_state(account)
        return self._reported(written, renamed)

    def _masters_named(self, writes: Sequence[Write]) -> set[int]:
        """The series (master pks) the writes may change: their targets' and those their images name."""
        pks: set[int] = set()
        for write in writes:
            ids = [write.event_id]
            image = write.image or {}
            ids.append(str(image.get("series", "")))
            ids.extend(str(r.get("id", "")) for part in ("left", "rows") for r in image.get(part) or ())
            pks.update(int(i) for i in ids if i.isascii() and i.isdigit() and len(i) <= 18)
        if not pks:
            return set()
        rows = Event.objects.filter(calendar__owner=self.user, pk__in=pks).values_list("pk", "series_id")
        return {series or pk for pk, series in rows}

    def _plan(
        self,
        before: dict[int, Event],
        after: dict[int, Event],
        calendars: dict[int, Calendar],
        ops: list[str],
    ) -> tuple[list[_Call], list[_Call]]:
        """The Google requests that make Google hold what the mirror now holds."""
        phase1: list[_Call] = []
        phase2: list[_Call] = []
        new_count = 0

        def etag(calendar: Calendar, gid: str) -> str:
            assert calendar.account is not None
            return str(calendar_state(calendar.account, calendar.remote_id)["etags"].get(gid, ""))

        for pk, row in before.items():
            if row.series_id is None and pk not in after and is_remote_id(row.uid):
                calendar = calendars[row.calendar_id]
                phase1.append(_Call(calendar, "delete", row.uid, if_match=etag(calendar, row.uid)))
        for pk, row in after.items():
            if row.series_id is not None or row.calendar_id not in calendars:
                continue
            calendar = calendars[row.calendar_id]
            old = before.get(pk)
            body = row_body(row)
            if old is None and not is_remote_id(row.uid):
                seed = row.operation_id or ("|".join(ops) + f"#{new_count}" if ops else uuid.uuid4().hex)
                new_count += 1
                phase1.append(_Call(calendar, "insert", event_id_for(seed), body=body, row=row))
            elif old is None:  # a deleted event put back: Google keeps it, cancelled, under its id
                phase1.append(_Call(calendar, "patch", row.uid, body=body, row=row))
            else:
                patch = changed_fields(row_body(old), body)
                if patch:
                    phase1.append(
                        _Call(
                            calendar, "patch", row.uid, body=patch, if_match=etag(calendar, row.uid), row=row
                        )
                    )
            if row.rrule:
                phase2.extend(self._instances(row, old, before, after, calendar, etag))
        return phase1, phase2

    def _instances(
        self,
        master: Event,
        old: Event | None,
        before: dict[int, Event],
        after: dict[int, Event],
        calendar: Calendar,
        etag: Any,
    ) -> list[_Call]:
        """Instance patches of one series: overrides new or changed, occurrences cancelled or back."""
        calls: list[_Call] = []
        zone, all_day = master.timezone, master.all_day

        def iid(rid: datetime) -> str:
            return instance_id(master.uid, rid, all_day=all_day, zone=zone)

        def by_rid(rows: dict[int, Event]) -> dict[float, Event]:
            return {
                r.recurrence_id.timestamp(): r
                for r in rows.values()
                if r.series_id == master.pk and r.recurrence_id is not None
            }

        was = by_rid(before) if old is not None else {}
        now = by_rid(after)
        for key, row in now.items():
            assert row.recurrence_id is not None
            body = {k: v for k, v in row_body(row).items() if k != "recurrence"}
            prior = was.get(key)
            patch = changed_fields(row_body(prior) if prior is not None else None, body)
            if patch:
                match = etag(calendar, iid(row.recurrence_id)) if prior is not None else ""
                calls.append(_Call(calendar, "instance", iid(row.recurrence_id), body=patch, if_match=match))
        cancelled_before = {datetime.fromisoformat(x).timestamp() for x in (old.exdates if old else [])}
        cancelled_now = {datetime.fromisoformat(x).timestamp(): x for x in master.exdates}
        for key, stamp in cancelled_now.items():
            if key not in cancelled_before:
                rid = datetime.fromisoformat(stamp)
                match = etag(calendar, iid(rid)) if key in was else ""
                calls.append(
                    _Call(calendar, "instance", iid(rid), body={"status": "cancelled"}, if_match=match)
                )
        same_series = old is not None and (old.rrule, old.start) == (master.rrule, master.start)
        if same_series:
            duration = master.end - master.start
            for key in cancelled_before - set(cancelled_now) - set(now):
                rid = datetime.fromtimestamp(key, UTC)
                probe = Event(
                    timezone=zone,
                    all_day=all_day,
                    start=rid,
                    end=rid + duration,
                    start_date=rid.astimezone(master.zone).date() if all_day else None,
                    end_date=(rid + duration).astimezone(master.zone).date() if all_day else None,
                )
                body = {
                    "status": "confirmed",
                    "start": row_body(probe)["start"],
                    "end": row_body(probe)["end"],
                }
                calls.append(_Call(calendar, "instance", iid(rid), body=body))
        return calls

    def _run(self, calls: list[_Call], send: str, progress: dict[str, Any], renamed: dict[str, str]) -> None:
        """Send one phase (one request alone, more in batches) and record what Google answered."""
        if not calls:
            return
        by_account: dict[int, list[_Call]] = {}
        for call in calls:
            by_account.setdefault(call.calendar.account_id or 0, []).append(call)
        for group in by_account.values():
            account = group[0].calendar.account
            assert account is not None
            client = GoogleClient(account)
            answers: list[Any]
            if len(group) == 1:
                try:
                    answers = [client.execute(group[0].request(client, send))]
                except DuplicateError:
                    answers = [self._existing(client, group[0])]
            else:
                answers = client.batch([call.request(client, send) for call in group])
            for call, answer in zip(group, answers, strict=True):
                if isinstance(answer, HttpError):
                    error = translate(answer)
                    if not isinstance(error, DuplicateError) or call.kind != "insert":
                        raise error
                    answer = self._existing(client, call)
                self._record(call, answer, renamed)
                progress["done"] += 1

    @staticmethod
    def _existing(client: GoogleClient, call: _Call) -> Any:
        """409 on an insert with our own id: it was made before (its answer was lost); use it."""
        if call.kind != "insert":
            raise DuplicateError("An event with that id exists already in Google Calendar.")
        return client.execute(
            client.service.events().get(calendarId=call.calendar.remote_id, eventId=call.event_id)
        )

    @staticmethod
    def _record(call: _Call, answer: Any, renamed: dict[str, str]) -> None:
        assert call.calendar.account is not None
        etags = calendar_state(call.calendar.account, call.calendar.remote_id)["etags"]
        if call.kind == "delete":
            etags.pop(call.event_id, None)
            for key in [k for k in etags if k.startswith(call.event_id + "_")]:
                etags.pop(key)
            return
        answer = answer or {}
        if answer.get("status") == "cancelled":
            etags.pop(call.event_id, None)
        elif answer.get("etag"):
            etags[str(answer.get("id") or call.event_id)] = str(answer["etag"])
        if call.kind == "insert" and call.row is not None and call.row.uid != call.event_id:
            old = call.row.uid
            renamed[old] = call.event_id
            Event.objects.filter(pk=call.row.pk).update(uid=call.event_id, etag=new_etag())
            Event.objects.filter(series_id=call.row.pk).update(uid=call.event_id)

    def _reported(self, written: list[Written], renamed: dict[str, str]) -> list[Written]:
        """What the built-in store reported, with the Google ids new events got (a restore image names
        its calendar at the top, for the router)."""
        result = []
        for item in written:
            after = item.after
            if after is not None and after.uid in renamed:
                after = self.get_occurrence(event_id=after.event_id, recurrence_id=after.recurrence_id)
            image = item.restore_image
            if image is not None:
                image = _renamed(image, renamed)
                calendar = _image_calendar(image)
                if calendar:
                    image = {**image, "calendar_id": calendar}
            result.append(Written(before=item.before, after=after, restore_image=image))
        return result


def _rows(masters: set[int]) -> list[Event]:
    if not masters:
        return []
    return list(Event.objects.filter(Q(pk__in=masters) | Q(series_id__in=masters)).order_by("pk"))


def _send_updates(writes: Sequence[Write]) -> str:
    """``sendUpdates`` from what the request asked (``EventData.extra["send_updates"]``, or
    ``extra["notify"]`` true for "all"); "none" unless asked."""
    for write in writes:
        extra = write.data.extra or {}
        wanted = extra.get("send_updates")
        if wanted in SEND_UPDATES and wanted != "none":
            return str(wanted)
        if extra.get("notify"):
            return "all"
    return "none"


def _renamed(value: Any, renamed: dict[str, str]) -> Any:
    if not renamed:
        return value
    if isinstance(value, dict):
        return {k: _renamed(v, renamed) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, renamed) for v in value]
    if isinstance(value, str) and value in renamed:
        return renamed[value]
    return value


def _image_calendar(image: dict[str, Any]) -> str:
    if image.get("calendar_id"):
        return str(image["calendar_id"])
    rows = image.get("rows") or image.get("left") or ()
    if rows:
        return str(rows[0].get("calendar_id", ""))
    series = image.get("series")
    if series:
        row = Event.objects.filter(pk=series).values_list("calendar_id", flat=True).first()
        return str(row) if row else ""
    return ""
