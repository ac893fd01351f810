"""Which words of a turn a planned write used, and for what: the account a write must give first.

A reading that leaves words of the request unexplained has not understood the request, however sure
its parts look: "Set up a call with Bo on Wednesday at 11 and let him know" read as an event titled
'Call know with Bo and Let Him' used every word, but put some where no person would; read as 'Call
with Bo' it leaves "let him know" unplaced.  Either way the write must not happen unseen.

The account is made after the plan, from the plan itself, so it holds for whatever made the plan (the
rules or a model).  Each word of the turn goes to the role of the plan that used it:

- ``time``: a date, time, length or repetition that the time reader finds (the plan's own reader);
- ``operation``: a word that asks for one of the plan's steps or says which field a value fills
  ("add", "notify", "called", "location"), given by the plan (:class:`Facts` ``cues``);
- ``title``, ``target``, ``place``, ``people``, ``notes``: words of the new title, of what the plan
  looks for, of the place, of the people's names and of notes, matched to the turn's words;
- ``scope``: words that say how much ("only", "all", "from now on");

what is left is a word that carries no content (articles, pronouns, politeness, "event") or a
*leftover*.  The account also notes *doubts* about a new title, each a sign that the title is not a
name the user gave: words the user did not say, words taken out of the order or apart from where
they were said, the request's own verb, words another role reads (a date, the place), only words
that carry nothing ("Need"), a number no time explains ("Dinner 32"), and a name said after
"called" that the title does not hold.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache

from assistant.decomposer.intent import normalise
from assistant.decomposer.recurrence import read_repeat
from assistant.decomposer.zones import said_zone
from assistant.lexicon import (
    AWAY,
    BLOCK_FOR,
    BLOCKED,
    COPY_VERBS,
    CREATE_VERBS,
    DELETE_VERBS,
    DETERMINERS,
    EMAIL,
    EVENT_NOUNS,
    FILLER,
    GENERIC_EVENT_WORDS,
    HEDGES,
    MEAL_LEAD,
    MOVE_VERBS,
    NAMED_OUTRIGHT,
    NOT_ATTENDING,
    PICK,
    POINTERS,
    POLITE_PREFIX,
    STOPWORDS,
    STREET_ADDRESS,
    THE_NEXT_PERIOD,
    WISHING,
    away_words,
    blocks_time,
    compounds,
    singular,
    tokens,
)
from assistant.timeexpr import TimeMatch, find_durations, find_times

__all__ = ["Account", "Facts", "account_for", "stem"]


def _vocabulary(text: str) -> frozenset[str]:
    return frozenset(text.split())


_WORD = re.compile(r"[a-z0-9]+(?:['.][a-z0-9]+)*")
# Words that say how much of what is found a change applies to, or that it replaces something.
_SCOPE = _vocabulary(
    """
    only just all both every each whole entire series occurrence occurrences one ones rest instead
    again onwards onward forward back future following from now on remaining other another same also
    permanently forever anymore
    """
)
# Words that carry no content of their own in a request: how it is asked, not what.
_FUNCTION = _vocabulary(
    """
    i'd i'm i'll i've we'd we're we'll let's lets want need needs like would love wanna gonna going get grab
    got go could can you please pls plz kindly hey hi hello thanks thank yes yeah yep ok okay sure
    alright great good fine cool nice awesome perfect well actually oh um uh so then now as something
    anything thing things stuff new one it it's its that's there's there which my our your his her
    their its me us him them they he she we i'd i think guess down it'll that'll they'll
    he'll she'll you'll there'll it'd that'd possible
    better best works rather prefer preferably wish help
    helping assistance appreciate
    """
)
_DETERMINERS = DETERMINERS - POINTERS  # "a", "the", "my": not "that", which points at an event
# Asking that people be told ("and tell her", "let him know"): content, unless the plan tells them.
_TELLING = frozenset({"tell", "notify", "know", "email", "inform", "message", "text", "ping", "remind"})
_PERSON_FORM = re.compile(r"^(?P<local>[^@]+)@")
_ROLE_ORDER = ("time", "operation", "place", "people", "notes", "title", "target", "scope")
_SHOWN_AS = {"verb": "operation", "cue": "operation", "kept": "operation", "daypart": "time"}


@dataclass(frozen=True, slots=True)
class Facts:
    """What a plan writes, in words: its new titles, what it looks for, places, people and notes,
    and the words that ask for its steps or name its fields (``cues``)."""

    titles: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    places: tuple[str, ...] = ()
    people: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    cues: frozenset[str] = frozenset()
    # Words of what a plan that finds a time keeps free by itself ("leave time for lunch"), which may
    # also name the event ("gym time at 6"), and the words that say it is kept ("leave", "can't miss"):
    # without one of these, what would be kept is only named ("it's lunch with Ann")
    kept: frozenset[str] = frozenset()
    keeping: frozenset[str] = frozenset()
    hours: frozenset[int] = frozenset()  # the clock hours (0-23) of the times the plan sets
    # When the new events of a plan that only makes new ones may start (from, until): a day said that
    # none of them is on was not used ("add gym on saturday and sunday at 9am" planned for Saturday).
    created: tuple[tuple[datetime, datetime], ...] = ()
    # The wall times (hour, minute) those new events start and, where their length was said, end at,
    # when each is set (none is searched for): another clock time said was not used ("3 or 4pm").
    clock: frozenset[tuple[int, int]] = frozenset()
    searched: bool = False  # the plan finds its new events' time itself, in the range said
    calendars: tuple[str, ...] = ()  # the calendars new events go on ("add gym to my work calendar")


@dataclass(frozen=True, slots=True)
class Account:
    """The turn's words by role, what no role used (as phrases of the text), and the doubts about a
    new title."""

    roles: dict[str, tuple[str, ...]] = field(default_factory=dict)
    leftover: tuple[str, ...] = ()
    doubts: tuple[str, ...] = ()
    hedges: tuple[str, ...] = ()  # words that say it may not hold ("maybe", "probably")

    @property
    def complete(self) -> bool:
        return not self.leftover and not self.doubts and not self.hedges


@dataclass(slots=True)
class _Token:
    text: str
    start: int
    end: int
    role: str = ""


@lru_cache(maxsize=4096)
def stem(word: str) -> str:
    """A word without its ending, so that "travelling" and "travel", "classes" and "class",
    "Jason's" and "Jason" compare equal: the same crude cut for every word compared (kept for the
    words seen lately: the gate compares every word of a turn with every title, thousands a turn)."""
    word = word.removesuffix("'s")
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]
    return word


# The words that name an event right after saying what kind it is ("a workshop named Intro to Rust").
_NAMING = frozenset({"called", "named", "titled", "entitled"})


def _mark_kind(tokens: Sequence[_Token], norm: str, before: int) -> None:
    """The kind of event said right before its name ("a planning session called Q2 roadmap", "a
    workshop named Intro to Rust"): up to three words of one phrase, which the name accounts for and
    a title may still take."""
    for token in reversed([t for t in tokens if t.end <= before][-3:]):
        if token.role or token.text in STOPWORDS or norm[token.end : before].strip():
            break
        token.role = "cue"
        before = token.start


def _clock_hour(word: str) -> int | None:
    """The hour a bare clock number says ("8", "12:30", "830"), or None."""
    hours = word.split(":")[0] if ":" in word else word[:-2] if len(word) in (3, 4) else word
    return int(hours) if hours.isdigit() and int(hours) <= 24 else None


def _tokens(norm: str) -> list[_Token]:
    found = (_Token(m.group(0).strip(".'"), m.start(), m.end()) for m in _WORD.finditer(norm))
    return [t for t in found if t.text]


def _mark(tokens: Sequence[_Token], spans: Iterable[tuple[int, int]], role: str) -> None:
    for lo, hi in spans:
        for token in tokens:
            if not token.role and lo <= token.start and token.end <= hi:
                token.role = role


def _words(text: str) -> list[str]:
    return [t.text for t in _tokens(normalise(text))]


def _align(tokens: Sequence[_Token], words: list[str], role: str) -> tuple[list[tuple[int, int]], list[str]]:
    """Give the turn's tokens that say ``words`` (a title, a place) to ``role``, in order where it can;
    returns (index in ``words``, token position) of each word found and the words the turn does not
    say (stopwords are not looked for)."""
    pairs: list[tuple[int, int]] = []
    missing: list[str] = []
    after = _phrase_at(tokens, words)
    for k, word in enumerate(words):
        if word in STOPWORDS:
            continue
        order = [*range(after, len(tokens)), *range(after)]
        # a word no other name has taken first ("Laundry" of "the title would be Laundry ... at the
        # Laundry room"), and for what is looked for, the start of a word ("calc" for "Calculus")
        candidates = [i for i in order if _says(tokens[i].text, word, prefix=role == "target")]
        found = next(
            (i for i in candidates if tokens[i].role in _WEAK), candidates[0] if candidates else None
        )
        if found is None:
            missing.append(word)
            continue
        pairs.append((k, found))
        if tokens[found].role in _WEAK:
            tokens[found].role = role
        after = found + 1
    return pairs, missing


# Words a quoted phrase of leftovers does not start or end with ("and let him know", "for the review").
_EDGES = _vocabulary("a an the and or but so then to of for on in at with from by as")
_WEAK = frozenset({"", "function", "scope", "cue", "kept", "daypart"})  # roles a name may still take


def _says(token: str, word: str, *, prefix: bool) -> bool:
    if stem(token) == stem(word) or token in (f"{word}s", f"{word}es"):  # "lectures" says "lecture"
        return True
    return prefix and len(token) >= 3 and word.startswith(token)


def _phrase_at(tokens: Sequence[_Token], words: list[str]) -> int:
    """Where the content words of a name stand together in the text (the place "Laundry room" of "...
    at the Laundry room", not its first "laundry"); 0 when they do not."""
    wanted = [stem(w) for w in words if w not in STOPWORDS]
    said = [(i, stem(t.text)) for i, t in enumerate(tokens) if t.text not in STOPWORDS]
    for j in range(len(said) - len(wanted) + 1):
        if wanted and [s for _, s in said[j : j + len(wanted)]] == wanted:
            return said[j][0]
    return 0


def _phrases(tokens: Sequence[_Token], norm: str) -> tuple[str, ...]:
    """The leftover words as the text says them: each run of words no role of the plan used (words
    that carry nothing among them), without the articles and prepositions at its ends ("let him know",
    "quarterly accounts review")."""
    phrases: list[str] = []
    run: list[_Token] = []
    for token in [*tokens, None]:
        if token is not None and token.role in ("", "function"):
            run.append(token)
            continue
        if any(not t.role for t in run):
            while run and run[0].role and run[0].text in _EDGES:
                run.pop(0)
            while run and run[-1].role and run[-1].text in _EDGES:
                run.pop()
            phrases.append(norm[run[0].start : run[-1].end])
        run = []
    return tuple(phrases)


def _replaces_nothing(tokens: Sequence[_Token], facts: Facts) -> tuple[str, ...]:
    """("instead",) when the turn says its event replaces another and the plan only makes a new one:
    "dinner with mom at 7 instead" with no dinner to move reads as a change of something the plan does
    not touch, which the user sees before it is made."""
    if facts.created and not facts.targets and any(t.text == "instead" for t in tokens):
        return ("instead",)
    return ()


# The words that say a time is one ("in the time slot 10:30", "with a time of 9:30 pm", "afternoon 2
# slot"): they tell when, as the time does.
_SLOT_BEFORE = re.compile(r"\b(?:(?:start |event )?time(?: slot)?|slot)\s+(?:(?:of|at|for|is|as)\s+)?$")
# "sometime tomorrow morning", "anytime on Friday": a time to find, which a plan that finds it uses.
_SOMETIME = re.compile(r"\b(?:some ?time|anytime|any time)\b")
_SLOT_AFTER = re.compile(r"\s+(?:time )?slot\b")


def _slot_words(norm: str, when: Sequence[TimeMatch]) -> list[tuple[int, int]]:
    spans = []
    for said in when:
        before = _SLOT_BEFORE.search(norm, 0, said.span[0])
        after = _SLOT_AFTER.match(norm, said.span[1])
        spans += [m.span() for m in (before, after) if m is not None]
    return spans


def account_for(
    text: str, facts: Facts, *, now: datetime, earlier: Sequence[str] = (), naming: bool = False
) -> Account:
    """The account of ``text`` against what a plan writes (``facts``); ``earlier`` are the user's
    previous turns of the conversation, where words of a title described over several turns come
    from; ``naming``: the turn answers what the event should be called."""
    norm = normalise(text)
    tokens = _tokens(norm)
    timed = [t for t in find_times(norm, now=now, daytime=True) if not t.error]
    # Words of a date or clock time, which a title must not take.
    when = [t for t in timed if t.has_date or t.has_time]
    meals = [(t.span[0], t.span[0] + m.end()) for t in when if (m := MEAL_LEAD.match(t.text))]
    _mark(tokens, meals, "daypart")  # "lunch tomorrow at 1": the lunch is the event too
    _mark(tokens, [t.span for t in when], "time")
    _mark(tokens, _slot_words(norm, when), "time")
    _mark(tokens, [d.span for d in find_durations(norm)], "time")
    if facts.searched:
        _mark(tokens, [m.span() for m in _SOMETIME.finditer(norm)], "time")
    if COPY_VERBS.search(norm):  # "copy it to the week after": where copies go, from the period copied
        _mark(tokens, [m.span() for m in THE_NEXT_PERIOD.finditer(norm)], "time")
    repeat = read_repeat(norm, now)
    _mark(tokens, repeat.spans if repeat is not None else (), "time")
    other = said_zone(norm, list)  # "10am London time": the zone of a time (told, or asked for)
    _mark(tokens, other.spans if other is not None and other.zone is not None else (), "time")
    # A day part alone ("lunch", "evening") may be both when and what the event is: a title may take it.
    _mark(tokens, [t.span for t in timed if not (t.has_date or t.has_time)], "daypart")
    polite = POLITE_PREFIX.match(norm)
    _mark(tokens, [polite.span()] if polite else (), "function")
    said_verbs = (CREATE_VERBS, MOVE_VERBS, DELETE_VERBS, COPY_VERBS, NOT_ATTENDING)
    verbs = [m.span() for pattern in said_verbs for m in pattern.finditer(norm)]
    _mark(tokens, sorted(verbs)[:1], "verb")  # the request's own verb
    _mark(tokens, verbs, "operation")
    _mark(tokens, [m.span() for m in FILLER.finditer(norm)], "function")
    named = NAMED_OUTRIGHT.search(norm)
    if named is not None:  # "call it", "the title is", "as the title": which field the name is for
        cue = (
            (named.start(), named.start("title"))
            if named["title"] is not None
            else (named.end("before"), named.end())
        )
        _mark(tokens, [cue], "cue")
        if named["title"] is not None and named.group(0).split()[0] in _NAMING:
            _mark_kind(tokens, norm, named.start())
    keeps = any(stem(t.text) in facts.keeping for t in tokens)
    kept = facts.keeping | facts.kept if keeps else facts.keeping
    # "it takes place on Friday": the place of "taking place" is a cue where "taking" is one
    if stem("taking") in facts.cues:
        _mark(tokens, [m.span() for m in _TAKES_PLACE.finditer(norm)], "cue")
    for token in tokens:  # the words that ask for the plan's steps, which a name may still take
        if not token.role and stem(token.text) in facts.cues:
            token.role = "cue"
        elif not token.role and stem(token.text) in kept:
            token.role = "kept"
        elif not token.role and _clock_hour(token.text) in {h % 12 or 12 for h in facts.hours} | facts.hours:
            token.role = "time"  # "move dinner to 8": the bare hour the plan read as 8 PM
    for place in facts.places:
        _align(tokens, _words(place), "place")
    # a person as "Ann Lee ann@example.com": the address said is theirs
    invited = {part.casefold() for person in facts.people for part in person.split()}
    _mark(tokens, [m.span() for m in EMAIL.finditer(norm) if m.group(0).casefold() in invited], "people")
    for person in facts.people:
        _align(tokens, _words(_PERSON_FORM.sub(r"\g<local>", person).replace(".", " ")), "people")
    for note in facts.notes:
        _align(tokens, _words(note), "notes")
    doubts = [
        d for title in facts.titles for d in _title_doubts(title, tokens, norm, facts, earlier, named, naming)
    ]
    for target in facts.targets:
        _align(tokens, _words(target), "target")
    # "move all my yoga sessions": the kind of the events found, said after their name
    for before, token in itertools.pairwise(tokens):
        if before.role == "target" and not token.role and EVENT_NOUNS.fullmatch(singular(token.text)):
            token.role = "target"
    if facts.targets:  # "move the second one to 5pm": the pick of the events shown is what is found
        _mark(tokens, [m.span() for m in PICK.finditer(norm)], "target")
    elif facts.created:  # "book the first one for a call with Bo": the pick of the free times offered
        _mark(tokens, [m.span() for m in PICK.finditer(norm)], "time")
    for token in tokens:
        if token.role in ("", "verb") and token.text in _SCOPE:
            token.role = "scope"
        elif not token.role and (
            token.text in HEDGES or token.text == "tentative" or (token.text == "might" and facts.created)
        ):
            token.role = "hedge"  # "I might have lunch with Ana": of a new event, not "events I might have"
        elif (
            not token.role
            and token.text not in _TELLING
            and (
                (word := token.text.removesuffix("'s")) in STOPWORDS
                or word in _FUNCTION
                or word in GENERIC_EVENT_WORDS
                or (len(word) == 1 and not word.isdigit())
            )
        ):
            token.role = "function"
    addresses = [m.span() for m in STREET_ADDRESS.finditer(norm)]  # "at 1722 First Street": no day
    # a time said in another zone ("10am his time, he's in London") is used at that hour there, which
    # is another hour here: no time the plan sets can be compared with it
    elsewhere = other is not None and other.zone is not None
    for said in when:  # a day or hour the plan did not use is words unused, though no title may take them
        if elsewhere and said.has_time:
            continue
        if not any(lo < said.span[1] and said.span[0] < hi for lo, hi in addresses) and not (
            _used(said, facts.created, now) and _at_a_time_used(said, facts.clock)
        ):
            for token in tokens:
                if token.role == "time" and said.span[0] <= token.start < said.span[1]:
                    token.role = ""
    roles: dict[str, list[str]] = {}
    for token in tokens:
        role = _SHOWN_AS.get(token.role, token.role)
        if role and role != "function":
            roles.setdefault(role, []).append(token.text)
    ordered = {r: tuple(roles[r]) for r in _ROLE_ORDER if r in roles}
    return Account(
        roles=ordered,
        leftover=_phrases(tokens, norm),
        doubts=tuple(dict.fromkeys(doubts)),
        hedges=(*roles.get("hedge", ()), *_replaces_nothing(tokens, facts)),
    )


_TAKES_PLACE = re.compile(r"\b(?:takes?|taking|taken|took) place\b")


def _used(said: TimeMatch, created: tuple[tuple[datetime, datetime], ...], now: datetime) -> bool:
    """Whether the plan used a day said: any, unless the plan makes new events and none of them may
    start on that day.  Today, unless named ("now", "all day" are no day said), is always used."""
    if not created or not said.has_date or said.start is None or said.end is None:
        return True
    zone = said.start.tzinfo
    first, last = said.start.date(), (said.end - timedelta(microseconds=1)).date()
    if first == last == now.astimezone(zone).date():
        named = (
            said.weekdays
            or any(c.isdigit() for c in said.text)
            or {"today", "tonight"} & set(tokens(said.text))
        )
        if not named:
            return True
    return any(
        since.astimezone(zone).date() <= last
        and first <= (until - timedelta(microseconds=1)).astimezone(zone).date()
        for since, until in created
    )


# A clock time said as one: "4pm", "15:15", "five p.m.", "noon".
_CLOCK_SAID = re.compile(r"\d[:.]\d|\b[ap]\.?m\b|\d[ap]m\b|\b(?:noon|midnight)\b")


def _at_a_time_used(said: TimeMatch, clock: frozenset[tuple[int, int]]) -> bool:
    """Whether the plan used a clock time said alone ("4pm" of "thursday 3 or 4pm"): any, unless the
    plan sets its new events' times and none of them starts or ends then."""
    if not clock or said.has_date or not said.has_time or said.start is None or said.is_interval:
        return True
    if not _CLOCK_SAID.search(said.text):
        return True  # "at 128 El Cerrito Plz", "about 2 hours": a number, no clock time said as one
    return (said.start.hour, said.start.minute) in clock


def _title_doubts(
    title: str,
    tokens: list[_Token],
    norm: str,
    facts: Facts,
    earlier: Sequence[str],
    outright: re.Match[str] | None,
    naming: bool = False,
) -> list[str]:
    """Why ``title`` may not be a name the user gave (aligning its words to ``tokens`` as it goes);
    ``outright`` is where the turn names the event outright ("call it ..."), if it does; ``naming``,
    whether the turn answers what to call it (its words whole, "Planning", are then given outright)."""
    away = away_words(norm)
    if away is not None and title.casefold() == AWAY[away]:
        # 'Out of office' of "ooo friday", 'Vacation' of "I'm on holiday next week": the words the turn
        # says the absence with are the name
        pairs, missing = _align(tokens, _words(away), "title")
        if pairs and not missing:
            return []
    if title == BLOCKED and blocks_time(norm):
        return []  # 'Busy' of "block my calendar tomorrow from 2 to 4": time held for nothing named
    words = _words(title)
    said = {stem(t.text) for t in tokens}
    names = {stem(w) for person in facts.people for w in _words(_PERSON_FORM.sub(r"\g<local>", person))}
    head, _, tail = title.rpartition(" with ")
    before = [t.role for t in tokens]
    people: list[str] = []
    if head and all(stem(w) in said for w in _words(tail)):
        # "Lunch with Sam" of "lunch tomorrow with Sam" or "with Sam, lunch": the people it is with,
        # said anywhere, after what it is
        people = _words(tail)
        words = _words(head)
        _align(tokens, people, "people")
    # "Meeting" of "I want to meet with Peter": a plain word for an event is the plan's own name for
    # it, not words taken from the text
    generic = [w for w in words if w in GENERIC_EVENT_WORDS]
    words = [w for w in words if w not in GENERIC_EVENT_WORDS]
    pairs, missing = _align(tokens, words, "title")
    # the earlier turns are read only for words this turn does not say (most titles have none)
    said_before = {stem(w) for turn in earlier for w in _words(turn)} if missing else set()
    if not pairs and missing and all(stem(w) in said_before for w in missing):
        return []  # a title said in an earlier turn ("No, find another time that day"), checked then
    doubts: list[str] = []
    invented = [w for w in missing if stem(w) not in said_before and w not in GENERIC_EVENT_WORDS]
    if invented:
        doubts.append(f"it has words you did not say ({' '.join(invented)})")
    positions = [i for _, i in pairs]
    if any(b < a for a, b in itertools.pairwise(positions)):
        doubts.append("it puts your words in another order")
    elif _stitched(tokens, words, pairs, names | {stem(w) for w in people}):
        doubts.append("it joins words you said apart")
    roles = [before[i] for i in positions]
    taken = [tokens[i].text for i in positions]
    if "verb" in roles:
        doubts.append("it takes the request's verb")
    verb = next((i for i, role in enumerate(before) if role == "verb"), None)
    if (
        positions
        and verb is not None
        and max(positions) < verb
        and _names_after(tokens, verb)
        and outright is None  # "Label it Apartment visit and put the time for 12:30"
    ):
        # "Sam said he'd add lunch at 1": the words before the verb are who asked, what it makes after
        doubts.append("it is said before what you asked for")
    crossed = [w for w, role in zip(taken, roles, strict=True) if role == "time"]
    if crossed:
        doubts.append(f"it takes {' '.join(crossed)!r}, which says when")
    # A word that asks for a step names the event when the user gave the name outright ("call it Planning"),
    given = outright is not None and (outright["title"] or "").casefold().startswith(title.casefold())
    # or as the answer to what to call it ("Planning")
    given = given or (naming and norm.strip(" .!?").casefold() == title.casefold())
    # or said as what time is blocked for ("block Friday afternoon for planning")
    purpose = BLOCK_FOR.search(norm)
    given = given or (purpose is not None and purpose["what"].casefold().endswith(title.casefold()))
    nothing_roles = ("function", "scope", "verb") if given else ("function", "cue", "scope", "verb")
    carries_nothing = all(
        w in STOPWORDS or w in _FUNCTION or w in _SCOPE or role in nothing_roles
        for w, role in zip(taken, roles, strict=True)
    )
    # "Check-in", "Follow-up": a compound of little words, said so, is a name
    compound = any(w in norm or w.replace("-", " ") in norm for w in compounds(title.casefold()))
    if not compound and ((positions and carries_nothing) or not (positions or generic)):
        doubts.append("its words say nothing of the event")  # "Need", "As"
    elif any(_request_gerund(m[1]) for m in _GERUND_OBJECT.finditer(title.casefold())):
        # 'Focus on scheduling an apartment visit': the request said inside, its object the name
        doubts.append("it holds what you asked me to do")
    elif taken[:1] and taken[0] in WISHING:
        # 'Want to focus on scheduling an apartment visit': how the user asked, taken as what
        doubts.append(f"it starts with how you asked ({taken[0]!r})")
    named = _named(tokens, outright, before)
    if named and not set(named) <= {stem(w) for w in _words(title)}:
        doubts.append(f'it is not the name you gave ("{" ".join(named)}")')
    if _BEING.intersection(words):
        # 'Flight is taking off' of "my flight is taking off at 5 on friday": a sentence about the
        # event, not its name (2 of the corpora's 2,415 titles have "is" or "was")
        doubts.append("it reads as a sentence about the event")
    if any(w.isdigit() and len(w) > 2 and role != "time" for w, role in zip(taken, roles, strict=True)):
        doubts.append("it has a number I could not read")
    calendar = {stem(w) for name in facts.calendars for w in _words(name)}
    if len(words) > 1 and stem(words[-1]) in calendar:
        # 'Gym to my work' of "add gym to my work calendar": where it goes, taken for what it is ('Work
        # dinner' may go on the Work calendar)
        doubts.append("it holds the name of the calendar it goes on")
    return doubts


# The verb of being, which says something of an event and seldom stands in its name.
_BEING = frozenset({"is", "are", "was", "were"})
# A verb's -ing form and the article of its object: "scheduling an apartment visit", "booking a cab".
_GERUND_OBJECT = re.compile(r"\b(\w+ing) (?:a|an|the|my|our|some)\b")


def _request_gerund(word: str) -> bool:
    """Whether ``word`` is the -ing form of a verb of making ("scheduling", "booking", "adding")."""
    stem_ = word.removesuffix("ing")
    return stem_ != word and any(CREATE_VERBS.fullmatch(w) for w in (stem_, stem_ + "e"))


def _names_after(tokens: Sequence[_Token], verb: int) -> bool:
    """Whether the request's verb is followed by words of its own ("add lunch"), not by "it" ("lunch
    with Sam, add it for Friday": the title said first, then the request about it) nor by nothing
    ("Will call Tracy at 8 pm tonight. Remind me.")."""
    after = [
        t.text
        for t in tokens[verb + 1 :]
        if t.role in ("", "title", "daypart") and t.text not in STOPWORDS and t.text not in _FUNCTION
    ]
    return bool(after) and after[0] not in ("it", "that", "this", "one", "them")


def _named(tokens: Sequence[_Token], m: re.Match[str] | None, roles: list[str]) -> list[str]:
    """The first words of the name said outright at ``m`` ("called Team Meeting on Monday" gives team,
    meeting): up to three words after the cue, to the first that says when or where ("called Dinner
    with Kim at 88 Pine Street") or starts a clause (or the words before "as the title")."""
    if m is None:
        return []
    lo, hi = m.span("title") if m["title"] is not None else m.span("before")
    said: list[str] = []
    for token, role in zip(tokens, roles, strict=True):
        if token.start < lo or token.start >= hi:
            continue
        ended = role in ("time", "place") or token.text in ("and", "which", "that", "it", "it's")
        if ended or len(said) == 3:
            break
        if said and role in ("cue", "verb"):  # "call it Appointment for the title": the field's name ends
            break  # it, and so does the verb of a request ("called Jason's concert added to my calendar")
        if token.text not in STOPWORDS and token.text not in _FUNCTION:
            said.append(stem(token.text))
    return said


def _stitched(
    tokens: Sequence[_Token], words: list[str], pairs: list[tuple[int, int]], names: set[str]
) -> bool:
    """Whether the title is made of pieces said apart: between two of its words the text has other
    words than the title has there, other than a determiner it dropped ("lunch date with my friend
    Anne") or what stands before the names of the people it ends with ("lunch tomorrow with Sam")."""
    for (k, a), (m, b) in itertools.pairwise(pairs):
        gap = [t.text for t in tokens[a + 1 : b] if t.text not in _DETERMINERS | GENERIC_EVENT_WORDS]
        between = [w for w in words[k + 1 : m] if w not in _DETERMINERS]
        if gap == between:
            continue
        if words[k].endswith("'s") and not between and gap in (["has"], ["has", "got"]):
            continue  # "Daughter's recital" of "my daughter has a recital": what someone has is theirs
        rest = [w for w in words[m:] if w not in STOPWORDS]
        if rest and all(stem(w) in names for w in rest):
            continue
        return True
    return False
