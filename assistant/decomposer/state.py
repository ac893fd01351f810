"""The dialogue state: what a conversation has established so far, updated by every turn.

A turn is read as an update of this state, not as a sentence on its own: "and the 12th?" repeats the
last question for another day, "when am I free?" after a day was discussed asks about that day, and a
turn with only a time, a title or a place fills the event being put together.  It is stored in the
conversation's ``context`` (a JSON column), so it survives restarts; ``v`` versions its layout.

Two kinds of fields: *lasting* ones (the last question and its range, the events last shown, the run
to undo), kept until a later turn replaces them, and *passing* ones (the event being assembled, the
event just made, what the last reply asked for), which hold only for the turn right after the one
that set them: a reply that asked "what time?" is answered by the next turn or not at all.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, tzinfo
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = [
    "ABOUT_ONE_SHOWN",
    "DECLINED",
    "PASSING",
    "Asked",
    "DialogueState",
    "Draft",
    "EventRef",
    "FreeTime",
    "LastQuestion",
]

Asked = Literal["date", "time", "title", "location", "when", "what", "confirm"]
# Keys of ``context`` that only the next turn may use.
DECLINED = "declined"
"""Context key of the preview rows the user just declined while asking for something else instead."""
ABOUT_ONE_SHOWN = "about-one-shown"
"""Name of the plan that answers about one event of a list shown ("where is the second one?"): the
list stays the events shown, so that "and the third one?" still picks from it."""
PASSING = frozenset(
    {"draft", "made", "asked", "pending_create", "pending_setting", "pending_edit", "pending_move", DECLINED}
)


class _State(BaseModel):
    model_config = ConfigDict(extra="ignore")


class EventRef(_State):
    """An event as the conversation last showed or touched it ("it", "the first one")."""

    summary: str
    start: datetime
    end: datetime
    location: str = ""
    series: bool = Field(default=False, description="The whole of a series was made or changed.")


class FreeTime(_State):
    """A free time the last reply offered ("book the first one" takes it)."""

    start: datetime
    end: datetime
    # the time the user asked about ("am I free Thursday at 4?"), not one found in a longer free stretch:
    # "book it" means that time
    asked: bool = False


class LastQuestion(_State):
    """The last read-only question: what was asked (events, free time, a count), of which events, and
    for which range; "and next week?" or "do the same for March" asks it again of another range."""

    operation: Literal["query", "free", "count"]
    start: datetime | None = Field(default=None, description="The range the user named, if any.")
    end: datetime | None = None
    single_day: bool = False
    titles: list[str] = Field(default_factory=list, description="The events' titles asked about.")
    title_words: list[str] = Field(default_factory=list)
    category: str | None = None
    people: list[str] = Field(default_factory=list)
    person_names: list[str] = Field(default_factory=list)


class Draft(_State):
    """A new event being described over several turns, with what is known of it so far."""

    title: str = ""
    day: date | None = None
    at: str | None = Field(default=None, description="Start time HH:MM.")
    duration_minutes: int | None = None
    location: str = ""
    attendees: list[str] = Field(default_factory=list)
    people: list[str] = Field(default_factory=list, description="Names said, for the title.")
    strangers: list[str] = Field(
        default_factory=list, description="Names said that the directory does not know: not invited."
    )
    calendar: str | None = None
    repeat: str = Field(default="", description="RRULE of a repeating event, UNTIL included.")
    repeat_days: list[int] = Field(default_factory=list, description="Weekdays it falls on (0=Monday).")
    all_day: bool = Field(default=False, description="An all-day event: a day, no time.")
    last_day: date | None = Field(default=None, description="An all-day event's last day (not its first).")
    either_half: bool = Field(default=False, description="Its hour was said without am/pm, 7 or 8.")
    due: bool = Field(default=False, description="Its time was said as a deadline ('by Friday 5pm').")
    part: str | None = Field(default=None, description="The part of its day said, its time not yet.")

    @classmethod
    def of_preview(cls, payload: dict[str, Any], tz: tzinfo) -> Draft | None:
        """The one new event a preview waiting for approval would make, as a draft that a detail said
        instead of a yes goes on with ("call it Book club", "make it 4pm instead"); None for a
        preview of anything else."""
        rows = [row for row in payload.get("preview") or [] if isinstance(row, dict)]
        if len(rows) != 1 or rows[0].get("action") != "create" or rows[0].get("series"):
            return None
        row, after = rows[0], rows[0].get("after") or {}
        if not after.get("start") or not after.get("end"):
            return None
        start = datetime.fromisoformat(after["start"]).astimezone(tz)
        end = datetime.fromisoformat(after["end"]).astimezone(tz)
        all_day = bool(row.get("all_day"))
        return cls(
            title=str(row.get("summary") or ""),
            day=start.date(),
            at=None if all_day else f"{start:%H:%M}",
            duration_minutes=None if all_day else int((end - start).total_seconds() // 60),
            location=str(row.get("location") or ""),
            attendees=[str(a) for a in row.get("attendees") or []],
            calendar=str(row.get("calendar_key") or "") or None,
            repeat=str(row.get("rrule") or ""),
            all_day=all_day,
            last_day=(end.date() - timedelta(days=1))
            if all_day and end.date() - start.date() > timedelta(days=1)
            else None,
        )

    def missing(self) -> list[Asked]:
        """What must still be asked: a title and a start (a day, and a time unless it lasts all day);
        the rest has defaults."""
        wanted: list[Asked] = []
        if not self.title:
            wanted.append("title")
        if self.day is None and self.at is None:
            wanted.append("when")
        elif self.at is None and not self.all_day:
            wanted.append("time")
        return wanted


class DialogueState(_State):
    v: int = 1
    last_question: LastQuestion | None = None
    last_events: list[EventRef] = Field(default_factory=list)
    offered: list[FreeTime] = Field(default_factory=list, description="Free times the last reply offered.")
    last_applied_run: str | None = None
    draft: Draft | None = None
    made: EventRef | None = Field(default=None, description="The event the previous turn created.")
    asked: Asked | None = None

    @classmethod
    def of(cls, context: dict[str, Any]) -> DialogueState:
        """The state stored in a conversation's context; a layout it cannot read starts afresh."""
        try:
            return cls.model_validate(context)
        except ValidationError:
            return cls()

    def focus(self) -> tuple[datetime, datetime] | None:
        """The day the conversation is about, if the last question named one."""
        q = self.last_question
        if q is None or not q.single_day or q.start is None or q.end is None:
            return None
        return q.start, q.end
