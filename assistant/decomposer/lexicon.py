"""Words the rule-based decomposer recognises, grouped by what they signal.

Kept as data, apart from the code that uses them, so the vocabulary can grow without the logic
changing; every entry is lower-case and matched on word boundaries.
"""

from __future__ import annotations

import re

__all__ = [
    "CATEGORY_WORDS",
    "COUNT_CUES",
    "CREATE_VERBS",
    "DELETE_VERBS",
    "FILLER",
    "FREE_CUES",
    "GENERIC_EVENT_WORDS",
    "GREETINGS",
    "MOVE_VERBS",
    "NO_WORDS",
    "OUT_OF_SCOPE",
    "POLITE_PREFIX",
    "PREFERENCE_WORDS",
    "QUERY_CUES",
    "QUESTION_STARTERS",
    "STOPWORDS",
    "UNDO_CUES",
    "YES_WORDS",
    "phrase_re",
]


def phrase_re(phrases: list[str] | tuple[str, ...]) -> re.Pattern[str]:
    """One regex matching any of the phrases as whole words (longest first)."""
    ordered = sorted(phrases, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in ordered) + r")\b")


POLITE_PREFIX = re.compile(
    r"^(?:(?:please|pls|plz|kindly|hey|hi|ok(?:ay)?|so|now|and|also|then|assistant|olly|"
    r"(?:can|could|would|will) you(?: please)?|(?:i|we) (?:want|need|would like|'d like|d like) (?:you )?to|"
    r"i want you to|help me(?: to)?|go ahead and|let'?s|let us|i'd like to|you should|try to|"
    r"(?:i )?(?:want|need) to|time to|remember to)\b[\s,]*)+"
)

DELETE_VERBS = phrase_re(
    [
        "delete", "deleted", "deleting", "remove", "removed", "cancel", "cancelled", "canceled", "erase",
        "clear", "clean", "clean up", "clear off", "clear out", "drop", "get rid of", "take away", "take off",
        "take out", "rm", "wipe", "wipe out", "empty", "scrap", "call off", "scratch", "discard", "purge",
        "unschedule", "dump", "strike",
    ]
)
CREATE_VERBS = phrase_re(
    [
        "schedule", "add", "create", "book", "set up", "setup", "set", "put", "plan", "arrange", "new",
        "remind", "reminder", "write down", "mark", "note", "save", "block", "block off", "organise",
        "organize", "invite", "insert", "enter", "register", "repeat", "make an appointment", "make a",
        "pencil in", "jot down", "log", "reserve", "fix", "mark down", "slot in",
    ]
)
MOVE_VERBS = phrase_re(
    [
        "move", "moved", "reschedule", "push", "push back", "shift", "postpone", "bring forward", "change",
        "rename", "shorten", "extend", "lengthen", "make it", "make that", "swap", "delay", "pull forward",
        "bump", "rearrange", "update", "edit", "modify",
    ]
)
COUNT_CUES = phrase_re(["how many", "how much", "count", "number of", "total of"])
FREE_CUES = phrase_re(
    [
        "free", "available", "availability", "free time", "open slot", "free slot", "slot", "slots",
        "find time", "find a time", "find some time", "when can i", "when could i", "gap", "gaps", "spare time",
        "open time", "when can we", "a good time", "best time",
    ]
)
QUERY_CUES = phrase_re(
    [
        "what", "what's", "whats", "when", "when's", "where", "who", "which", "show", "list", "tell me",
        "check", "any", "anything", "agenda", "look like", "looks like", "do i have", "have i got",
        "is there", "are there", "am i", "find", "search", "look up", "lookup", "see", "view", "display",
        "give me", "read", "how soon", "how long", "next", "upcoming", "coming up", "happening", "details",
        "info", "information", "busy", "remind me what", "overview", "summary", "summarize", "summarise",
    ]
)
QUESTION_STARTERS = re.compile(
    r"^(?:what|what's|whats|when|when's|where|who|whom|which|how|is|are|do|does|did|am|any|anything|"
    r"have i|has|was|were|will i|shall|should i|show|list|tell me|check|find|give me|read|display|view)\b"
)
UNDO_CUES = phrase_re(["undo", "revert", "take that back", "roll back", "rollback", "put it back", "undo that"])
YES_WORDS = re.compile(
    r"^(?:yes|yeah|yep|yup|sure|ok|okay|k|fine|go ahead|do it|confirm|confirmed|approve|approved|"
    r"sounds good|that works|please do|absolutely|of course|correct|right|y)\b"
)
NO_WORDS = re.compile(
    r"^(?:no|nope|nah|don't|do not|cancel|stop|never ?mind|abort|decline|forget it|not now|n)\b"
)
GREETINGS = re.compile(r"^(?:hi|hello|hey|good (?:morning|afternoon|evening)|thanks|thank you|help)\b[\s!.?]*$")
OUT_OF_SCOPE = phrase_re(
    [
        "weather", "forecast", "temperature", "rain", "snow", "news", "stock", "stocks", "score", "scores",
        "recipe", "joke", "song", "music", "play", "translate", "traffic", "flight status", "bitcoin",
        "election", "horoscope", "movie times", "restaurant", "directions",
    ]
)
PREFERENCE_WORDS = {
    "working_hours": phrase_re(["working hours", "work hours", "office hours", "workday", "work day"]),
    "lunch_hours": phrase_re(["lunch", "lunch break", "lunch hour", "lunch hours"]),
    "gym_schedule": phrase_re(["gym", "workout", "work out", "exercise", "training"]),
    "writing_block": phrase_re(["writing block", "writing time", "focus block", "deep work"]),
    "default_event_minutes": phrase_re(["default event length", "default length", "default duration"]),
}
CATEGORY_WORDS = {
    "class": phrase_re(
        ["class", "classes", "lecture", "lectures", "seminar", "seminars", "lab", "labs", "tutorial", "tutorials",
         "course", "courses"]
    ),
    "meeting": phrase_re(["meeting", "meetings", "meet", "call", "calls", "1:1", "one on one", "sync", "standup"]),
}
# Words that name "an event" in general: never a title on their own.
GENERIC_EVENT_WORDS = frozenset(
    """event events appointment appointments thing things stuff item items entry entries plan plans
    schedule calendar calendars agenda reminder reminders meeting meetings""".split()
)
STOPWORDS = frozenset(
    """a an the my our your his her their its this that these those me i we you us it them to of for on in at
    by with from and or but all any some every each is are am was were be been being do does did have has had
    will would can could should shall may might must please pls what what's whats when where who which how
    there here up out off about into over than then so if not no yes just also too very much many more most
    next last this coming upcoming today tomorrow tonight yesterday week weekend month year day days time
    times morning afternoon evening night o'clock oclock pm am a.m. p.m. ok okay okey hey hi set
    calendar calendars remind reminder reminders delete remove cancel schedule add create book show tell
    check list find clear make put move events event anything something everything everyone""".split()
)
FILLER = phrase_re(
    ["please", "pls", "thanks", "thank you", "okay", "ok", "right", "now", "for me", "right now", "asap",
     "from my calendar", "from the calendar", "in my calendar", "on my calendar", "to my calendar",
     "to the calendar", "in the calendar", "on the calendar", "my calendar", "the calendar", "calendar"]
)
