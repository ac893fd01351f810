"""The built-in calendar store: calendars, events with RFC 5545 recurrence, and applied writes.

A recurring series is one master row plus one row per changed occurrence (RFC 5545 RECURRENCE-ID
semantics), so moving one lecture never rewrites the rule and every other occurrence stays as it was.
Writes go through :mod:`skills.services`, which keeps ``etag``, ``sequence`` and ``series_end`` right.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import F, Q

__all__ = [
    "AppliedOperation",
    "Calendar",
    "CalendarAccount",
    "Event",
    "Notification",
    "default_timezone",
    "new_etag",
    "new_uid",
    "validate_timezone",
]


def new_uid() -> str:
    """A globally unique RFC 5545 UID, so exported events never collide with another system's."""
    return f"{uuid.uuid4()}@calendar-assistant"


def new_etag() -> str:
    return uuid.uuid4().hex


def validate_timezone(value: str) -> None:
    """Reject names zoneinfo cannot load, so a typo cannot reach the recurrence expansion."""
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValidationError(f"{value!r} is not an IANA time zone (e.g. America/New_York).") from exc


def default_timezone() -> str:
    return str(settings.ASSISTANT_DEFAULT_TIMEZONE)


class CalendarAccount(models.Model):
    """Where some of a user's calendars live: a Google account, a CalDAV server, or the local store.

    The provider registered for ``kind`` (``settings.CALENDAR_PROVIDERS``) serves the account's
    calendars.  Calendars without an account are the built-in store's, as every calendar was before
    accounts existed, so an account of kind ``local`` is optional.

    Credentials (tokens, app passwords) are only ever stored encrypted (:mod:`skills.crypto`): the
    column holds a Fernet token and :attr:`credentials` is the only way in or out, so they appear in
    no form, admin page, repr or log line.  ``sync_state`` is the provider's bookmark (sync tokens,
    ctags per calendar) and must never hold a secret.
    """

    class Kind(models.TextChoices):
        LOCAL = "local", "Built-in calendar"
        GOOGLE = "google", "Google Calendar"
        CALDAV = "caldav", "CalDAV"

    class Status(models.TextChoices):
        OK = "ok", "Connected"
        NEEDS_RECONNECT = "needs_reconnect", "Needs reconnecting"

    # The columns that hold secrets: no admin filter, search or ordering may read them (a filter such
    # as ``encrypted_credentials__regex`` answers yes or no about the ciphertext).
    SECRET_FIELDS = ("encrypted_credentials",)

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_accounts"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    display_name = models.CharField(max_length=200, help_text="How the account is named to its owner.")
    encrypted_credentials = models.TextField(
        blank=True, editable=False, help_text="A Fernet token (see skills.crypto); empty for none."
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OK)
    last_error = models.TextField(blank=True, help_text="Why the account last failed, for its owner.")
    sync_state = models.JSONField(default=dict, blank=True, help_text="The provider's sync bookmarks.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["owner_id", "display_name"]

    def __str__(self) -> str:
        return f"{self.display_name} ({self.get_kind_display()})"

    @property
    def credentials(self) -> dict[str, Any]:
        """The decrypted credentials (empty when none are stored), in a dict that hides its values
        from repr; decrypted on each read, so no plaintext is kept on the instance.

        Raises:
            ImproperlyConfigured: no key is configured (CREDENTIAL_KEYS).
            skills.crypto.SecretUnreadableError: no configured key decrypts them.
        """
        from skills.crypto import SecretDict, decrypt_json

        if not self.encrypted_credentials:
            return SecretDict()
        return decrypt_json(self.encrypted_credentials)

    @credentials.setter
    def credentials(self, value: dict[str, Any] | None) -> None:
        """Encrypt ``value`` into the column (saved with the instance); empty or None stores none.

        Raises:
            ImproperlyConfigured: no key is configured (CREDENTIAL_KEYS), with how to make one.
        """
        from skills.crypto import encrypt_json

        self.encrypted_credentials = encrypt_json(dict(value)) if value else ""

    @property
    def has_credentials(self) -> bool:
        return bool(self.encrypted_credentials)


class Calendar(models.Model):
    """One of a user's calendars; ``key`` is the stable handle preferences and skills name it by.

    A calendar without an ``account`` is the built-in store's.  One with an account is that
    account's calendar ``remote_id``, mirrored here by its provider (see :mod:`skills.providers`).
    ``writable`` off keeps the assistant from changing it (a shared or subscribed calendar the user
    only wants read); it is still read.
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendars")
    key = models.SlugField(max_length=64)
    name = models.CharField(max_length=200)
    timezone = models.CharField(max_length=64, default=default_timezone, validators=[validate_timezone])
    is_default = models.BooleanField(default=False)
    color = models.CharField(max_length=16, blank=True)
    account = models.ForeignKey(
        CalendarAccount,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="calendars",
        help_text="Where the calendar lives; empty for the built-in store.",
    )
    remote_id = models.CharField(
        max_length=1024, blank=True, help_text="The calendar's id in its account (a Google id, a CalDAV URL)."
    )
    writable = models.BooleanField(default=True, help_text="Whether the assistant may change this calendar.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["owner_id", "name"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "key"], name="calendar_unique_owner_key"),
            # New events go to the default calendar, so there must never be two to choose from.
            models.UniqueConstraint(
                fields=["owner"], condition=Q(is_default=True), name="calendar_one_default_per_owner"
            ),
            # A sync finds the mirror of a remote calendar by its id: it must be one row.
            models.UniqueConstraint(
                fields=["account", "remote_id"],
                condition=Q(account__isnull=False),
                name="calendar_unique_remote",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.key})"

    def clean(self) -> None:
        if self.account is not None and self.account.owner_id != self.owner_id:
            raise ValidationError({"account": "A calendar can only belong to an account of its owner."})


class Event(models.Model):
    """A one-off event, the master of a recurring series, or an override of one occurrence.

    ``start``/``end`` are always set, also for all-day events (the local midnights of ``start_date``
    and ``end_date`` in ``timezone``), so one indexed range filter finds every kind of event.
    ``series_end`` is the end of a finite series' last occurrence (null when the rule never ends);
    with ``start`` it lets SQL discard series that cannot overlap a window before any expansion.
    Overrides share their master's ``uid`` and are keyed by ``recurrence_id``, the original start.
    """

    class Visibility(models.TextChoices):
        DEFAULT = "default"
        PUBLIC = "public"
        PRIVATE = "private"

    class Transparency(models.TextChoices):
        OPAQUE = "opaque"
        TRANSPARENT = "transparent"

    class Status(models.TextChoices):
        CONFIRMED = "confirmed"
        CANCELLED = "cancelled"

    calendar = models.ForeignKey(Calendar, on_delete=models.CASCADE, related_name="events")
    uid = models.CharField(max_length=255, default=new_uid)
    summary = models.CharField(max_length=255)
    description = models.TextField(blank=True)
    location = models.CharField(max_length=255, blank=True)
    start = models.DateTimeField()
    end = models.DateTimeField()
    timezone = models.CharField(max_length=64, validators=[validate_timezone])
    all_day = models.BooleanField(default=False)
    start_date = models.DateField(null=True, blank=True)
    end_date = models.DateField(null=True, blank=True, help_text="Exclusive, as in RFC 5545.")
    rrule = models.TextField(blank=True, default="", help_text="RFC 5545 RRULE value, empty for none.")
    exdates = models.JSONField(default=list, blank=True, help_text="Cancelled original starts, ISO UTC.")
    series = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="overrides"
    )
    recurrence_id = models.DateTimeField(null=True, blank=True)
    attendees = models.JSONField(default=list, blank=True)
    organizer = models.EmailField(blank=True)
    visibility = models.CharField(max_length=16, choices=Visibility.choices, default=Visibility.DEFAULT)
    transparency = models.CharField(max_length=16, choices=Transparency.choices, default=Transparency.OPAQUE)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CONFIRMED)
    sequence = models.PositiveIntegerField(default=0)
    etag = models.CharField(max_length=32, default=new_etag, editable=False)
    series_end = models.DateTimeField(null=True, blank=True, editable=False)
    operation_id = models.CharField(max_length=128, blank=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["start", "pk"]
        indexes = [models.Index(fields=["calendar", "start"], name="event_calendar_start")]
        constraints = [
            models.UniqueConstraint(
                fields=["calendar", "uid"], condition=Q(series__isnull=True), name="event_unique_uid"
            ),
            models.UniqueConstraint(fields=["series", "recurrence_id"], name="event_unique_override"),
            models.UniqueConstraint(
                fields=["calendar", "operation_id"],
                condition=~Q(operation_id=""),
                name="event_unique_operation",
            ),
            models.CheckConstraint(condition=Q(end__gte=F("start")), name="event_end_after_start"),
        ]

    def __str__(self) -> str:
        return self.summary

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def clean_fields(self, exclude: Collection[str] | None = None) -> None:
        """Validate fields, but not that a calendar or series this row holds in memory exists.

        Django checks a foreign key with a query per key, even for a related row the instance was
        given as an object; every write validates, so moving 500 occurrences paid 1,000 queries for
        rows just read (and locked) in the same transaction.  The database's foreign key constraints
        still hold either way, and a key given only as an id is still checked.
        """
        held = {
            name
            for name, descriptor in (("calendar", Event.calendar), ("series", Event.series))
            if descriptor.is_cached(self)
        }
        super().clean_fields(exclude={*(exclude or ()), *held})

    @property
    def is_recurring(self) -> bool:
        return bool(self.rrule)


class AppliedOperation(models.Model):
    """A receipt for an update or delete carrying an idempotency key.

    A workflow step may run again after a restart; the receipt lets the replay return the first
    result instead of moving an event twice.  Creations need no receipt: ``Event.operation_id``
    already names the write that created a row.
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    operation_id = models.CharField(max_length=128)
    event = models.ForeignKey(Event, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    recurrence_id = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "operation_id"], name="applied_operation_unique")
        ]

    def __str__(self) -> str:
        return self.operation_id


class RemoteIntent(models.Model):
    """The remote writes a change set is about to send, committed before the first is sent.

    A worker can die after a server accepted a write and before the database committed the change:
    the mirror, the receipts and the change records roll back, the server keeps the write.  So the
    set's remote writes (each with its idempotency key, target and the etag it is sent over) are
    written, in their own transaction, before the set's transaction opens, and the row is deleted
    inside it: a row that outlives its set means some of its writes may have reached a server
    unrecorded.  Every remote write carries the set's key (a CalDAV property, a Google private
    extended property), so the set's next attempt (the same key, after a restart) recognises its own
    writes where a server answers "changed since" and sends over them, finishing the set once and
    recorded, instead of taking them for someone else's edit; until then a sync does not mirror a
    resource that carries the key, so nothing shows a write no record explains.
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    operation_id = models.CharField(max_length=128)  # the change set's; each write's is "<it>:<n>"
    writes = models.JSONField(default=list)  # [{operation_id, action, calendar_id, event_id, etag}]
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "operation_id"], name="remote_intent_unique")]

    def __str__(self) -> str:
        return self.operation_id


class ChangeRecord(models.Model):
    """One change a workflow made to a calendar, with what the occurrence looked like before and after.

    The records of a run are what "undo that" reverts, as one unit; ``after_etag`` is how an undo
    notices an event edited again since (and leaves it alone rather than overwrite the newer edit).
    Undoing writes records of its own under the undoing run, so undoing an undo redoes.

    ``before`` and ``after`` show one occurrence, which cannot put back a change to a whole series
    or a cancelled occurrence's own time and title; for those the provider's ``restore_image``
    holds what the change replaced and what it left, and undo hands it back to the provider.
    """

    class Action(models.TextChoices):
        CREATE = "create"
        UPDATE = "update"
        DELETE = "delete"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    run_id = models.UUIDField(db_index=True)
    operation_id = models.CharField(max_length=160)
    position = models.PositiveIntegerField(default=0)
    action = models.CharField(max_length=8, choices=Action.choices)
    scope = models.CharField(
        max_length=16,
        default="occurrence",
        help_text="The part of a series the change applied to: occurrence, following or series.",
    )
    summary = models.CharField(max_length=500, blank=True)
    event_id = models.CharField(max_length=64, blank=True)
    recurrence_id = models.DateTimeField(null=True, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    after_etag = models.CharField(max_length=64, blank=True)
    restore_image = models.JSONField(
        null=True,
        blank=True,
        help_text="The provider's image of the series the change replaced and left, for undo.",
    )
    undone_by = models.UUIDField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "run_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "operation_id"], name="change_record_unique_operation")
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.summary}"


class Notification(models.Model):
    """One mail telling another attendee what a run changed: one row per run and recipient.

    The row is written before the first attempt and marked sent as soon as the mail backend took the
    message, so a retry (the worker's, or a workflow step run again) sends only what has not gone out:
    nobody hears the same news twice because someone else's copy failed.  ``sending`` is a claim
    taken by compare-and-set before each attempt, so two processes retrying one run never both send;
    a claim much older than any send is what a process that died mid-send left, and may be retaken.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        SENDING = "sending"
        SENT = "sent"
        FAILED = "failed", "Failed (no more retries)"
        WITHDRAWN = "withdrawn", "Withdrawn (the change was undone before it went out)"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    run_id = models.UUIDField(db_index=True, help_text="The run whose changes the mail tells of.")
    recipient = models.EmailField()
    subject = models.TextField()
    body = models.TextField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True, help_text="Why the last attempt failed.")
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "recipient"]
        constraints = [
            models.UniqueConstraint(fields=["run_id", "recipient"], name="notification_unique_run_recipient")
        ]

    def __str__(self) -> str:
        return f"{self.recipient} ({self.status})"


class CopyLinkManager(models.Manager["CopyLink"]):
    """Keeps copy links in step with the writes that make and unmake copies (see
    :func:`skills.changes.apply_change_set` and :func:`skills.changes.undo_run`)."""

    def link_copies(self, *, owner: Any, run_id: str, made: list[tuple[Any, Any]]) -> None:
        """Link each copy just written to what it copies, in the transaction that wrote it.

        ``made`` pairs a change's ``copy_of`` (a :class:`skills.changes.CopyOf`) with the occurrence
        the provider wrote.  A link whose copy was deleted since (``replaces``) gives way to the new
        one; a live link to the same calendar means another request copied the event meanwhile, and
        the whole change set is refused rather than leave two copies.
        """
        links = [
            CopyLink(
                owner=owner,
                run_id=run_id,
                source_calendar_id=source.calendar_id,
                source_event_id=source.event_id,
                source_uid=source.uid,
                source_recurrence_id=source.recurrence_id,
                source_etag=source.etag,
                copy_calendar_id=copy.calendar_id,
                copy_event_id=copy.event_id,
            )
            for source, copy in made
            if source is not None and copy is not None
        ]
        if not links:
            return
        stale = [source.replaces for source, _ in made if source is not None and source.replaces]
        if stale:
            self.filter(owner=owner, copy_event_id__in=stale).delete()
        # A write replayed by a concurrent twin of this apply is linked already.
        linked = set(
            self.filter(owner=owner, copy_event_id__in=[link.copy_event_id for link in links]).values_list(
                "copy_event_id", flat=True
            )
        )
        try:
            with transaction.atomic():
                self.bulk_create([link for link in links if link.copy_event_id not in linked])
        except IntegrityError as exc:
            from skills.providers.base import ProviderError

            raise ProviderError(
                "some of these events were copied meanwhile; ask again to see what is left to copy"
            ) from exc

    def follow_undo(self, *, owner: Any, reverted: list[tuple[ChangeRecord, ChangeRecord]]) -> None:
        """Keep links in step with an undo: ``reverted`` pairs each change record undone with the
        record of the write that undid it (not saved yet).

        A copy undone loses its link, which its undoing record keeps (``before["copy_link"]``), so
        that undoing the undo links the copy it brings back; a deleted copy brought back under a new
        id is linked by that id.
        """
        created = [o.event_id for o, _ in reverted if o.action == ChangeRecord.Action.CREATE]
        links = {link.copy_event_id: link for link in self.filter(owner=owner, copy_event_id__in=created)}
        for original, entry in reverted:
            if original.action == ChangeRecord.Action.CREATE:
                link = links.get(original.event_id)
                if link is not None and entry.before is not None:
                    entry.before = {**entry.before, "copy_link": link.source_image()}
                continue
            kept = (original.before or {}).get("copy_link")
            if kept and original.action == ChangeRecord.Action.DELETE and entry.event_id:
                rid = kept.get("source_recurrence_id")
                self.filter(owner=owner, copy_event_id=entry.event_id).delete()
                self.create(
                    owner=owner,
                    run_id=entry.run_id,
                    copy_event_id=entry.event_id,
                    source_recurrence_id=datetime.fromisoformat(rid) if rid else None,
                    **{name: kept.get(name, "") for name in CopyLink.SOURCE_FIELDS},
                )
            elif entry.event_id and entry.event_id != original.event_id:
                self.filter(owner=owner, copy_event_id=original.event_id).update(copy_event_id=entry.event_id)
        if links:
            self.filter(pk__in=[link.pk for link in links.values()]).delete()


class CopyLink(models.Model):
    """A copy one of a user's calendars holds of an event (or one occurrence) of another, made by a
    copy or a sync (:mod:`skills.sync_skills`).

    The link, never the title, is how a later sync knows that an event was copied already (by its
    calendar, UID and, for an occurrence of a series, its original start) and that an event is itself
    a copy, which is never copied back: a two-way sync does not ping-pong.  Ids are the provider's, as
    in :class:`ChangeRecord`.  A link is written in the transaction that writes its copy, and undoing
    the copy removes it.  ``source_etag`` is the original as it was copied: another one means it was
    edited since.
    """

    SOURCE_FIELDS = ("source_calendar_id", "source_event_id", "source_uid", "source_etag", "copy_calendar_id")

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    source_calendar_id = models.CharField(max_length=64)
    source_event_id = models.CharField(max_length=64)
    source_uid = models.CharField(max_length=255)
    source_recurrence_id = models.DateTimeField(
        null=True, blank=True, help_text="The occurrence copied, for a recurring event (its original start)."
    )
    source_etag = models.CharField(max_length=64, blank=True)
    copy_calendar_id = models.CharField(max_length=64)
    copy_event_id = models.CharField(max_length=64)
    run_id = models.UUIDField(null=True, blank=True, help_text="The run that made the copy.")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CopyLinkManager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["owner", "copy_event_id"], name="copy_link_copy"),
            models.Index(fields=["owner", "source_uid"], name="copy_link_source"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "copy_calendar_id", "copy_event_id"], name="copy_link_unique_copy"
            ),
            # One copy of an event (or occurrence) per calendar.
            models.UniqueConstraint(
                fields=["owner", "source_calendar_id", "source_uid", "copy_calendar_id"],
                condition=Q(source_recurrence_id__isnull=True),
                name="copy_link_unique_event",
            ),
            models.UniqueConstraint(
                fields=[
                    "owner",
                    "source_calendar_id",
                    "source_uid",
                    "source_recurrence_id",
                    "copy_calendar_id",
                ],
                condition=Q(source_recurrence_id__isnull=False),
                name="copy_link_unique_occurrence",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source_uid} -> {self.copy_event_id}"

    def source_image(self) -> dict[str, Any]:
        """What a link says of its source, as JSON (kept in an undo's record to link a redone copy)."""
        image: dict[str, Any] = {name: getattr(self, name) for name in self.SOURCE_FIELDS}
        rid = self.source_recurrence_id
        image["source_recurrence_id"] = rid.isoformat() if rid else None
        return image
