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
not hold: 412 → :class:`ConflictError`, a revoked grant → :class:`PermissionDeniedError` with the
account marked ``needs_reconnect``.  The requests Google had already accepted (in this batch, or
in the batches before it of the same unit of work, see :mod:`skills.providers.compensation`) are
then taken back: the requests that make Google hold again what the mirror held before, planned the
same way from the rows before and after with the two swapped (an insert deleted, a patch patched
back, a deleted event patched back to ``confirmed``), each with ``If-Match`` the etag the accepted
request left, so an event someone edited meanwhile is reported as not put back, never overwritten.
Afterwards the calendar is re-synced, so the mirror shows what Google holds (the next read, a
fresh preview, sees a 412's cause).
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

from skills import inflight
from skills.models import Calendar, CalendarAccount, Event, new_etag
from skills.providers.base import (
    BusyInterval,
    ConflictError,
    NotFoundError,
    NotPutBack,
    ProviderError,
    TransientProviderError,
    Write,
    Written,
)
from skills.providers.compensation import all_or_nothing
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


def _mark(calls: list[_Call], key: str) -> None:
    """Every insert and patch of a change set carries the set's key (see skills.inflight)."""
    if not key:
        return
    for call in calls:
        if call.kind != "delete":
            marker = {"private": {inflight.GOOGLE_PROPERTY: key}}
            call.body = {**(call.body or {}), "extendedProperties": marker}


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


class _Sent:
    """The requests of one batch Google accepted, and how to take them back (a
    :class:`~skills.providers.compensation.Compensation`, registered before anything is sent)."""

    def __init__(self, provider: GoogleProvider) -> None:
        self.provider = provider
        self.calendars: set[Calendar] = set()
        self.done: list[_Call] = []
        self.unsure: list[_Call] = []  # inserts that failed without an answer
        self.before: dict[int, Event] = {}
        self.after: dict[int, Event] = {}
        self.by_pk: dict[int, Calendar] = {}
        self.send = "none"
        self.touched: set[tuple[Calendar, str]] = set()  # (calendar, Google id) whose etag moved
        self.left: set[tuple[Calendar, str]] = set()  # those Google no longer holds as the mirror does

    def planned(
        self,
        before: dict[int, Event],
        after: dict[int, Event],
        calendars: dict[int, Calendar],
        send: str,
        calls: list[_Call],
    ) -> None:
        """What the batch starts from and leads to (the images compensation plans from)."""
        self.before, self.after, self.by_pk, self.send = before, after, calendars, send
        self.calendars = {call.calendar for call in calls}

    def made(self) -> list[NotPutBack]:
        return [self._named(call, {call.event_id: call}) for call in self.done]

    def undo(self) -> list[NotPutBack]:
        """The requests that make Google hold what the mirror held before (the plan from the rows
        after to the rows before), limited to what was accepted: masters first, then instances."""
        left = self._unmake_unsure()
        if not self.done:
            return left
        done = {call.event_id: call for call in self.done}
        self.touched.update((call.calendar, call.event_id) for call in self.done)
        back = self.provider._plan(self.after, self.before, self.by_pk, ["compensation"])
        for phase in back:
            calls = [
                c
                for c in phase
                if c.kind != "insert" and (c.event_id in done or (c.kind == "instance" and _of(c) in done))
            ]
            self.touched.update((call.calendar, call.event_id) for call in calls)
            for call, _error in self.provider._run(calls, self.send, {}, []):
                self.left.add((call.calendar, call.event_id))
                left.append(self._named(call, done))
        return left

    def _unmake_unsure(self) -> list[NotPutBack]:
        """Delete each insert that may have been made (its id is ours: nobody else's event)."""
        calls = [_Call(call.calendar, "delete", call.event_id, body=call.body) for call in self.unsure]
        self.touched.update((call.calendar, call.event_id) for call in calls)
        failed = self.provider._run(calls, self.send, {}, [])
        left = [
            NotPutBack(summary=str((call.body or {}).get("summary") or "an event"), verb="created")
            for call, error in failed
            if not isinstance(error, NotFoundError)
        ]
        self.unsure = []
        return left

    def refresh(self) -> None:
        """The etags compensation left go into the stored sync state (an event Google holds as the
        mirror does is then not rewritten by the next sync; one not put back loses its etag, so the
        sync rewrites it), and the calendars are synced."""
        if not self.calendars:
            return
        with transaction.atomic():
            for account in self.provider._accounts_of(self.calendars):
                fresh = CalendarAccount.objects.select_for_update().get(pk=account.pk)
                for calendar, gid in self.touched:
                    if calendar.account_id != account.pk:
                        continue
                    kept = calendar_state(account, calendar.remote_id)["etags"]
                    etags = calendar_state(fresh, calendar.remote_id)["etags"]
                    for key in [k for k in etags if k == gid or k.startswith(gid + "_")]:
                        etags.pop(key)
                    if (calendar, gid) not in self.left:
                        etags.update({k: v for k, v in kept.items() if k == gid or k.startswith(gid + "_")})
                save_state(fresh)
        self.provider._resync(self.calendars)

    def _named(self, call: _Call, done: dict[str, _Call]) -> NotPutBack:
        """The event a call changed and what its accepted forward request did to it."""
        forward = done.get(call.event_id) or done.get(_of(call)) or call
        master = _of(call)
        names = {
            r.uid: r.summary for r in [*self.before.values(), *self.after.values()] if r.series_id is None
        }
        body = forward.body or {}
        verb: Any = "changed"
        if forward.kind == "insert":
            verb = "created"
        elif forward.kind == "delete" or body.get("status") == "cancelled":
            verb = "deleted"
        elif "start" in body:
            verb = "moved"
        return NotPutBack(summary=str(body.get("summary") or names.get(master, "an event")), verb=verb)


def _of(call: _Call) -> str:
    """The Google id of the event a call changes (an instance's master)."""
    return call.event_id.split("_", 1)[0] if call.kind == "instance" else call.event_id


class GoogleProvider(LocalProvider):
    """Calendars of a user's Google accounts (see the module docstring)."""

    name = "google"
    label = "Google Calendar"
    sends_updates = True  # with sendUpdates=all when the user asked to notify (see _send_updates)

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
        """People of this instance from the built-in store (those who do not let this user see them
        left out); everyone else from Google's freebusy.query (through the user's first connected
        Google account)."""
        known = {
            e.casefold()
            for e in get_user_model().objects.filter(is_active=True).values_list("email", flat=True)
            if e
        }
        local = [e for e in emails if e.strip().casefold() in known]
        remote = [e for e in emails if e.strip() and e.strip().casefold() not in known]
        busy = super().free_busy(emails=local, start=start, end=end) if local else {}
        # Users here left out by the built-in store do not share their busy times: they stay out.
        busy.update({e: [] for e in emails if e not in busy and e not in local})
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
        sent = _Sent(self)
        try:
            with all_or_nothing() as unit:
                unit.add(sent)
                with transaction.atomic():
                    return self._apply(writes, sent)
        except ProviderError as exc:
            cause = getattr(exc, "cause", exc)
            if isinstance(cause, ReconnectNeededError):
                for account in self._accounts_of(sent.calendars):
                    mark_needs_reconnect(account, str(cause))
            raise

    def take_back(self, key: str, writes: list[dict[str, Any]]) -> list[NotPutBack]:
        """See :meth:`CalendarProvider.take_back`: each event (or instance) the set wrote is patched
        back to the mirror's version where Google's carries ``key`` (or is cancelled, after a delete
        of the set's); an event the set inserted is deleted.  ``If-Match`` on each."""
        calendars = {
            c.pk: c
            for c in Calendar.objects.select_related("account").filter(
                owner=self.user, account__kind=CalendarAccount.Kind.GOOGLE
            )
        }
        left: list[NotPutBack] = []
        seen: set[tuple[int, str]] = set()
        with transaction.atomic():
            accounts = {
                a.pk: a
                for a in CalendarAccount.objects.select_for_update().filter(
                    pk__in={c.account_id for c in calendars.values()}
                )
            }
            for write in writes:
                named = str(write.get("calendar_id", ""))
                calendar = calendars.get(int(named)) if named.isdigit() else None
                if calendar is None or calendar.account_id not in accounts:
                    continue
                calendar.account = accounts[calendar.account_id or 0]
                gid, body, name = _restore_of(write)
                if not gid or (calendar.pk, gid) in seen:
                    continue
                seen.add((calendar.pk, gid))
                try:
                    put_back = _put_back(GoogleClient(calendar.account), calendar, gid, body, key, write)
                except ProviderError:
                    put_back = False
                if not put_back:
                    left.append(NotPutBack.of(name, write["action"]))
            for account in accounts.values():
                save_state(account)
        return left

    def _accounts_of(self, calendars: set[Calendar]) -> list[CalendarAccount]:
        return list({c.account_id: c.account for c in calendars if c.account is not None}.values())

    def _resync(self, calendars: set[Calendar]) -> None:
        """Best effort after a refusal: the mirror shows Google's current state again."""
        for calendar in calendars:
            account = CalendarAccount.objects.get(pk=calendar.account_id or 0)
            with contextlib.suppress(ProviderError):
                sync_calendar(GoogleClient(account), calendar)

    def _apply(self, writes: Sequence[Write], sent: _Sent) -> list[Written]:
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
        _mark([*phase1, *phase2], inflight.current_key())
        sent.planned(before, after, calendars, send, [*phase1, *phase2])
        renamed: dict[str, str] = {}
        for phase in (phase1, phase2):
            for call in phase:  # instance ids name the master by its Google id, known only after phase 1
                master_uid = call.event_id.split("_", 1)[0]
                if master_uid in renamed:
                    call.event_id = renamed[master_uid] + call.event_id[len(master_uid) :]
            failed = self._run(phase, send, renamed, sent.done)
            if failed:
                # An insert whose answer never came may have been made: compensation removes it too.
                sent.unsure = [
                    c for c, e in failed if c.kind == "insert" and isinstance(e, TransientProviderError)
                ]
                raise failed[0][1]
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
            for key in cancelled_before - set(cancelled_now) - set(now):
                rid = datetime.fromtimestamp(key, UTC)
                body = {"status": "confirmed", **_times(_plain(master, rid))}
                calls.append(_Call(calendar, "instance", iid(rid), body=body))
            # An override gone (a compensation or a restore putting a moved occurrence back): the
            # instance is patched back to the series' own time and fields.
            for key in set(was) - set(now) - set(cancelled_now):
                rid = datetime.fromtimestamp(key, UTC)
                plain = {k: v for k, v in row_body(_plain(master, rid)).items() if k != "recurrence"}
                patch = changed_fields(row_body(was[key]), plain)
                if patch:
                    calls.append(
                        _Call(calendar, "instance", iid(rid), body=patch, if_match=etag(calendar, iid(rid)))
                    )
        return calls

    def _run(
        self, calls: list[_Call], send: str, renamed: dict[str, str], done: list[_Call]
    ) -> list[tuple[_Call, ProviderError]]:
        """Send one phase (one request alone, more in batches), record what Google answered and add
        each accepted call to ``done``; the calls refused, with why (the rest are sent all the same:
        a batch's parts succeed or fail one by one, and compensation must know every one made)."""
        by_account: dict[int, list[_Call]] = {}
        for call in calls:
            by_account.setdefault(call.calendar.account_id or 0, []).append(call)
        failed: list[tuple[_Call, ProviderError]] = []
        for group in by_account.values():
            account = group[0].calendar.account
            assert account is not None
            answers: list[Any]
            try:
                client = GoogleClient(account)
                if len(group) == 1:
                    try:
                        answers = [client.execute(group[0].request(client, send))]
                    except DuplicateError:
                        answers = [self._existing(client, group[0], send)]
                    except ConflictError as exc:
                        answers = [self._over_own_write(client, group[0], send, exc)]
                else:
                    answers = client.batch([call.request(client, send) for call in group])
            except ProviderError as exc:
                failed.extend((call, exc) for call in group)
                continue
            for call, answer in zip(group, answers, strict=True):
                try:
                    if isinstance(answer, ProviderError):
                        raise answer
                    if isinstance(answer, HttpError):
                        error = translate(answer)
                        if isinstance(error, ConflictError):
                            answer = self._over_own_write(client, call, send, error)
                        elif not isinstance(error, DuplicateError) or call.kind != "insert":
                            raise error
                        else:
                            answer = self._existing(client, call, send)
                except ProviderError as exc:
                    failed.append((call, exc))
                    continue
                self._record(call, answer, renamed)
                done.append(call)
        return failed

    @staticmethod
    def _existing(client: GoogleClient, call: _Call, send: str) -> Any:
        """409 on an insert with our own id: it was made before (its answer was lost); use it.  If it
        has been deleted since (a failed change took it back), it is made live again with this body."""
        if call.kind != "insert":
            raise DuplicateError("An event with that id exists already in Google Calendar.")
        events = client.service.events()
        found = client.execute(events.get(calendarId=call.calendar.remote_id, eventId=call.event_id))
        if found.get("status") != "cancelled":
            return found
        back = dataclasses.replace(call, kind="patch", if_match=str(found.get("etag", "")))
        return client.execute(back.request(client, send))

    @staticmethod
    def _over_own_write(client: GoogleClient, call: _Call, send: str, refused: ConflictError) -> Any:
        """A 412 while resuming a set whose earlier attempt died (see skills.inflight): an event that
        carries the set's own key and holds what this call sends is that attempt's write, sent and
        never committed here, so this one goes over it; an event already deleted is what a delete
        wanted.  Anything else is someone else's edit, refused as ever."""
        key = inflight.current_key()
        if not (inflight.resuming() and key and call.kind != "insert"):
            raise refused
        events = client.service.events()
        found = client.execute(events.get(calendarId=call.calendar.remote_id, eventId=call.event_id))
        if call.kind == "delete" and found.get("status") == "cancelled":
            return found
        private = (found.get("extendedProperties") or {}).get("private") or {}
        if private.get(inflight.GOOGLE_PROPERTY) != key or not _holds(found, call.body or {}):
            raise refused  # another app's edit keeps the key: only the set's own content is its write
        again = dataclasses.replace(call, if_match=str(found.get("etag", "")))
        return client.execute(again.request(client, send))

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
            # A sync after an earlier try whose answer was lost may have mirrored the event already.
            twins = Event.objects.filter(calendar=call.calendar, uid=call.event_id, series=None).exclude(
                pk=call.row.pk
            )
            Event.objects.filter(Q(pk__in=twins) | Q(series__in=twins)).delete()
            Event.objects.filter(pk=call.row.pk).update(uid=call.event_id, etag=new_etag())
            Event.objects.filter(series_id=call.row.pk).update(uid=call.event_id)
            call.row.uid = call.event_id  # the row compensation plans from names it as Google does

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


def _holds(found: dict[str, Any], body: dict[str, Any]) -> bool:
    """Whether Google's event already has every field of a patch (times compared as instants or
    dates, as Google rewrites their text)."""
    for name, value in body.items():
        if name == "extendedProperties":
            continue
        have = found.get(name)
        if name in ("start", "end") and isinstance(value, dict) and isinstance(have, dict):
            if _instant(have) != _instant(value):
                return False
        elif have != value and not (value in ("", None, []) and have in ("", None, [])):
            return False
    return True


def _instant(when: dict[str, Any]) -> Any:
    if when.get("dateTime"):
        return datetime.fromisoformat(str(when["dateTime"]).replace("Z", "+00:00"))
    return when.get("date")


def _restore_of(write: dict[str, Any]) -> tuple[str, dict[str, Any] | None, str]:
    """(Google id, the body the mirror holds for it or None for an event the set inserted, its
    title) of one write of a set to take back."""
    if write["action"] == "create":
        return event_id_for(str(write["operation_id"])), None, "an event"
    event_id = str(write.get("event_id", ""))
    if not event_id.isdigit():
        return "", None, ""
    row = Event.objects.select_related("series").filter(pk=int(event_id)).first()
    if row is None:
        return "", None, ""
    master = row.series if row.series is not None else row
    stamp = str(write.get("recurrence_id") or "")
    rid = datetime.fromisoformat(stamp) if stamp else row.recurrence_id
    if rid is None or not master.rrule:
        return master.uid, {**row_body(master), "status": "confirmed"}, master.summary
    override = master.overrides.filter(recurrence_id=rid).first()
    body = {k: v for k, v in row_body(override or _plain(master, rid)).items() if k != "recurrence"}
    gid = instance_id(master.uid, rid, all_day=master.all_day, zone=master.timezone)
    return gid, {**body, "status": "confirmed"}, master.summary


def _put_back(
    client: GoogleClient,
    calendar: Calendar,
    gid: str,
    body: dict[str, Any] | None,
    key: str,
    write: dict[str, Any],
) -> bool:
    """One event back as the mirror holds it (see :meth:`GoogleProvider.take_back`); False when
    Google's version is not the set's (edited since: left alone).  Nothing there of the set's is
    True."""
    assert calendar.account is not None
    events = client.service.events()
    try:
        found = client.execute(events.get(calendarId=calendar.remote_id, eventId=gid))
    except NotFoundError:
        return True
    private = (found.get("extendedProperties") or {}).get("private") or {}
    cancelled = found.get("status") == "cancelled"
    if write["action"] == "delete":
        if not cancelled:
            return True  # the set's delete never arrived
    elif private.get(inflight.GOOGLE_PROPERTY) != key or cancelled:
        return True
    elif not _holds(found, _as_body(write.get("after"))):
        return False
    etags = calendar_state(calendar.account, calendar.remote_id)["etags"]
    if body is None:  # inserted by the set: it goes
        request = events.delete(calendarId=calendar.remote_id, eventId=gid, sendUpdates="none")
        request.headers["If-Match"] = str(found.get("etag", ""))
        client.execute(request)
        etags.pop(gid, None)
        return True
    request = events.patch(calendarId=calendar.remote_id, eventId=gid, body=body, sendUpdates="none")
    request.headers["If-Match"] = str(found.get("etag", ""))
    etags[gid] = str(client.execute(request).get("etag", ""))
    return True


def _as_body(after: dict[str, Any] | None) -> dict[str, Any]:
    """A set's intended event (skills.changes) as the Google fields that show it; an impossible
    one (no such summary) when the set could not say, so nothing matches it."""
    if not after:
        return {"summary": None, "status": "__unknown__"}

    def when(text: str) -> dict[str, str]:
        moment = datetime.fromisoformat(text)
        if after.get("all_day"):
            return {"date": moment.date().isoformat()}
        return {"dateTime": moment.isoformat()}

    return {
        "summary": after["summary"],
        "location": after["location"],
        "start": when(after["start"]),
        "end": when(after["end"]),
    }


def _plain(master: Event, rid: datetime) -> Event:
    """The occurrence of ``master`` at ``rid`` as the series alone makes it (an unsaved row)."""
    duration = master.end - master.start
    return Event(
        summary=master.summary,
        description=master.description,
        location=master.location,
        attendees=master.attendees,
        visibility=master.visibility,
        transparency=master.transparency,
        timezone=master.timezone,
        all_day=master.all_day,
        start=rid,
        end=rid + duration,
        start_date=rid.astimezone(master.zone).date() if master.all_day else None,
        end_date=(rid + duration).astimezone(master.zone).date() if master.all_day else None,
    )


def _times(row: Event) -> dict[str, Any]:
    body = row_body(row)
    return {"start": body["start"], "end": body["end"]}


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
