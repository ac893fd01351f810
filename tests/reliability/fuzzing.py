"""What the fuzz tests send: hypothesis strategies for chat texts, request bodies and websocket frames.

Three kinds of text go to the chat:

* :func:`unicode_texts`: anything a keyboard, a paste or a script can produce (control characters and
  NUL, right-to-left marks and scripts, emoji sequences, combining marks, text far past the length
  limit);
* :func:`calendar_texts`: real calendar words mixed with junk, so that the inputs get past the
  decomposer's first look and into its readers (times, dates, counts, repeats, people, titles), and the
  workflows and previews they plan: impossible dates ("2026-13-45", "at 25:99"), huge numbers ("in
  99999999999 minutes", "for 999999 weeks"), injection strings (SQL, HTML, JS, template and format
  strings), words said over and over;
* :func:`replies`: what a user answers a question or a preview with ("yes", "no", "the second one",
  "undo"), so the turns also resume paused runs, set them aside and undo applied ones.

:func:`malformed_bodies` are HTTP requests the page never sends (not JSON, JSON of the wrong shape,
wrong types, garbage undo ids, other content types, huge bodies); :func:`malformed_frames` the same for
the websocket. Each says whether the server must refuse it (4xx / an ``error`` event) or may take it.
"""

from __future__ import annotations

import json
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir
from pydantic import TypeAdapter, ValidationError

from assistant.services import clean_text
from assistant.views import MESSAGE_MAX_CHARS

__all__ = [
    "Body",
    "Frame",
    "calendar_texts",
    "chat_texts",
    "expected_ok",
    "malformed_bodies",
    "malformed_frames",
    "replies",
    "unicode_texts",
]

# Hypothesis keeps caches (its unicode tables, constants read from the code under test) in
# ./.hypothesis by default, whatever the example database: kept out of the checkout.
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "calendar-assistant-hypothesis")

# -- pieces ------------------------------------------------------------------------------------------

# Whatever unicode has, but lone surrogates (no UTF-8 encoder, browser or JSON library produces them
# from a string; the malformed bodies send them escaped, on purpose).
_ANY_CHAR = st.characters(exclude_categories=["Cs"])
_CONTROL_CHARS = st.sampled_from(
    ["\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\x1b", "\x7f", "\x85", "\x9f", "\r", "\r\n", "\t", "\n"]
)
_ODD = [
    "\u202e",  # right-to-left override
    "\u202d",
    "\u202c",
    "\u200f",  # right-to-left mark
    "\u200e",
    "\u200b",  # zero-width space
    "\u200d",  # zero-width joiner
    "\u2028",  # line separator
    "\u2029",
    "\ufeff",  # byte order mark
    "\ufffd",
    "\u0301\u0301\u0301",  # combining marks with nothing to combine with
    "שלום",
    "مرحبا بالعالم",
    "اجتماع غدا الساعة 3",
    "पुनर्निर्धारित",
    "会議を明日に移動",
    "Zürich Straße",
    "İstanbul",
    "😀",
    "👨‍👩‍👧‍👦",
    "🏳️‍🌈",
    "🇩🇪",
    "\U0010ffff",
    "\U0001f9d1\U0001f3fd\u200d\U0001f4bb",
    "Z̸̡̛a̷̢l̴g̶o̵",
    "ﷺ",
    "𝕞𝕖𝕖𝕥𝕚𝕟𝕘",
    "١٢:٣٠",  # Arabic-Indic digits
    "１２時",  # full-width digits
]
_ODD_PIECES = st.sampled_from(_ODD)

WORDS = [
    # verbs and cues
    "move", "reschedule", "push", "shift", "delete", "remove", "cancel", "clear", "create", "add", "book",
    "schedule", "put", "set up", "rename", "invite", "notify", "tell", "sync", "copy", "undo", "revert",
    "what", "when", "how many", "am I free", "is there", "show", "list", "find", "lighter", "free up",
    # things
    "meeting", "meetings", "class", "classes", "lecture", "lab", "gym", "dentist", "lunch", "dinner",
    "standup", "call", "1:1", "review", "seminar", "everything", "all", "events", "calendar", "work",
    "personal", "school", "Calculus II Lecture", "Biology Lab", "Team sync", "Design review",
    "Spanish Class", "History Seminar", "Dinner with Maya", "Mom's birthday", "Focus time",
    # people
    "Ana", "Bo", "Maya", "ana@demo.example", "bo@demo.example", "with Ann and Raj", "them", "everyone",
    "nobody@example.com", "me",
    # days and times
    "today", "tomorrow", "yesterday", "tonight", "monday", "Tuesday", "friday", "weekend", "next week",
    "this week", "last week", "next month", "morning", "afternoon", "evening", "noon", "midnight",
    "at 3", "at 3pm", "at 15:30", "9am", "from 2 to 4", "for an hour", "for 90 minutes", "until June",
    "every day", "every other week", "weekly", "weekdays", "every Tuesday and Thursday", "for 6 weeks",
    "on March 3", "2026-03-05", "in 2 hours", "in 3 days", "before lunch", "after work",
    # answers and connectives
    "yes", "no", "ok", "sure", "the first one", "the second", "both", "none", "and", "or", "but", "not",
    "instead", "also", "then", "to", "on", "at", "from", "by", "please", "?", "!", ",", ".",
]  # fmt: skip

JUNK = [
    # impossible and far dates and times
    "2026-13-45", "2026-02-30", "0000-00-00", "9999-12-31", "10000-01-01", "1-1-1", "31/31/2026",
    "at 25:99", "at 24:00", "at 99pm", "at -3", "at 0:60", "at 12:00:99", "13pm", "00am",
    "in 99999999999 minutes", "in 10000 years", "in -5 days", "in 0 minutes", "999999999 days ago",
    "for 999999 weeks", "for 0 weeks", "every 0 days", "every 99999 years", "for 1e308 hours",
    "on the 32nd", "on February 29 2027", "the 0th", "year 0", "week 54", "Q5", "month 13",
    # numbers
    "0", "-1", "3.14159", "1e309", "NaN", "Infinity", "99999999999999999999999999999999",
    "0x7fffffff", "١٢٣", "½", "Ⅻ", "2**64",
    # injection and format strings
    "'; DROP TABLE assistant_message; --", "' OR '1'='1", "\" OR 1=1 --", "1; SELECT * FROM auth_user",
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "javascript:alert(1)",
    "</textarea><svg onload=alert(1)>", "{{ 7*7 }}", "{% debug %}", "${7*7}", "#{7*7}",
    "{0}", "{}", "{text}", "{0.__class__}", "%s", "%d", "%(text)s", "%n%n%n", "%", "%%", "\\x00",
    "\\u0000", "../../etc/passwd", "C:\\\\Windows", "null", "undefined", "None", "true", "[]", "{}",
    "__proto__", "constructor", "$where", "\\", "\"", "'", "`", "|", "&&", "\\n",
    "FREQ=DAILY;COUNT=99999", "UNTIL=99991231T235959Z", "BEGIN:VEVENT", "mailto:a@b", "@", "@@",
    "a@b", "http://evil.example/", "*", "**", "...", "—", "–", "…",
]  # fmt: skip

_WORD = st.sampled_from(WORDS)
_JUNK = st.sampled_from(JUNK)
_NUMBER = st.one_of(
    st.integers(min_value=-(10**20), max_value=10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=0, max_value=10**40).map(lambda n: f"in {n} minutes"),
    st.integers(min_value=0, max_value=10**12).map(lambda n: f"for {n} weeks"),
    st.integers(min_value=0, max_value=10**9).map(lambda n: f"every {n} days"),
    st.integers(min_value=0, max_value=10**7).map(lambda n: f"{n} hours"),
    st.tuples(st.integers(-1, 120), st.integers(-1, 120)).map(lambda hm: f"at {hm[0]}:{hm[1]:02d}"),
    st.tuples(st.integers(0, 99999), st.integers(0, 99), st.integers(0, 99)).map(
        lambda ymd: f"{ymd[0]:04d}-{ymd[1]:02d}-{ymd[2]:02d}"
    ),
)
_SHORT_TEXT = st.text(_ANY_CHAR, min_size=1, max_size=12)


def _repeated(piece: st.SearchStrategy[str], most: int) -> st.SearchStrategy[str]:
    """One piece said many times ("move move move ...", "at 3 at 3 at 3 ...")."""
    return st.tuples(piece, st.integers(min_value=2, max_value=most)).map(lambda p: " ".join([p[0]] * p[1]))


def _to_length(piece: st.SearchStrategy[str], low: int, high: int) -> st.SearchStrategy[str]:
    """A piece repeated to between ``low`` and ``high`` characters: long texts without drawing each
    character (drawing 2,000 characters one by one is slow and shrinks badly)."""

    def build(args: tuple[str, int]) -> str:
        chunk, size = args
        return (chunk * (size // len(chunk) + 1))[:size]

    return st.tuples(piece.filter(bool), st.integers(min_value=low, max_value=high)).map(build)


def _rarely(
    common: st.SearchStrategy[str], rare: st.SearchStrategy[str], one_in: int
) -> st.SearchStrategy[str]:
    """``rare`` about once in ``one_in`` draws, ``common`` otherwise. The decomposer reads a text in
    about 0.15 ms a character, so texts near the length limit (~300 ms each) are kept to a few dozen of
    the run; a plain ``one_of`` would draw them as often as any short text."""
    return st.integers(min_value=1, max_value=one_in).flatmap(lambda i: rare if i == one_in // 2 else common)


# -- texts -------------------------------------------------------------------------------------------


def unicode_texts() -> st.SearchStrategy[str]:
    """Arbitrary unicode, short and long, with control characters, RTL, emoji and combining marks."""
    mixed = st.lists(st.one_of(_SHORT_TEXT, _CONTROL_CHARS, _ODD_PIECES), min_size=1, max_size=8).map("".join)
    common = st.one_of(
        st.text(_ANY_CHAR, min_size=0, max_size=40),
        st.text(st.characters(codec="ascii"), min_size=1, max_size=40),
        mixed,
        st.lists(_CONTROL_CHARS, min_size=1, max_size=6).map("".join),  # nothing but control characters
        st.text(st.sampled_from(" \t\n\r\u00a0\u2003\u3000"), min_size=1, max_size=10),  # only blanks
        _to_length(mixed, 40, 300),
        _to_length(_SHORT_TEXT, MESSAGE_MAX_CHARS + 1, 20 * MESSAGE_MAX_CHARS),  # far past the limit
    )
    rare = st.one_of(
        _to_length(mixed, MESSAGE_MAX_CHARS - 5, MESSAGE_MAX_CHARS + 5),  # both sides of the limit
        _to_length(_ODD_PIECES, MESSAGE_MAX_CHARS - 10, MESSAGE_MAX_CHARS),
    )
    return _rarely(common, rare, 40)


def calendar_texts() -> st.SearchStrategy[str]:
    """Calendar words, dates, numbers and junk, in any order and any number."""
    piece = st.one_of(
        _WORD, _WORD, _WORD, _WORD, _JUNK, _JUNK, _NUMBER, _ODD_PIECES, _CONTROL_CHARS, _SHORT_TEXT
    )
    sentence = st.lists(piece, min_size=1, max_size=14).map(" ".join)
    common = st.one_of(
        sentence,
        sentence,
        sentence,
        st.lists(_WORD, min_size=2, max_size=10).map(" ".join),  # only real words
        _repeated(st.one_of(_WORD, _JUNK), 30),
    )
    rare = st.one_of(
        _repeated(st.one_of(_WORD, _JUNK), 300),
        _to_length(sentence.map(lambda s: s + " "), MESSAGE_MAX_CHARS - 50, MESSAGE_MAX_CHARS),
    )
    return _rarely(common, rare, 40)


REPLIES = [
    "yes", "Yes please", "yes!", "ok do it", "no", "nope", "no, find another time", "no thanks",
    "the first one", "the second", "3", "0", "99", "-1", "both", "none of them", "undo", "undo that",
    "cancel", "never mind", "what?", "yes no", "yes and no", "YES", "y", "n", "the 99999999th one",
]  # fmt: skip


def replies() -> st.SearchStrategy[str]:
    return st.sampled_from(REPLIES)


def chat_texts() -> st.SearchStrategy[str]:
    """What the fuzz types into the chat: mostly calendar-ish, some arbitrary, some answers."""
    return st.one_of(calendar_texts(), calendar_texts(), unicode_texts(), replies())


# -- malformed requests ------------------------------------------------------------------------------

_JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(_ANY_CHAR, max_size=20),
)
_JSON = st.recursive(
    _JSON_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(_ANY_CHAR, max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_NOT_A_STRING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.lists(_JSON_SCALARS, max_size=3),
    st.dictionaries(st.text(max_size=5), _JSON_SCALARS, max_size=3),
)
_GARBAGE_ID = st.one_of(
    _NOT_A_STRING,
    st.text(_ANY_CHAR, max_size=40),
    st.sampled_from(
        [
            "",
            "0",
            "00000000-0000-0000-0000-000000000000",
            "not-a-uuid",
            "'; DROP TABLE workflows_run; --",
            "ffffffff-ffff-ffff-ffff-ffffffffffff",
            str(uuid.UUID(int=2**128 - 1)),
        ]
    ),
    st.uuids().map(str),  # well formed, nobody's run
    st.uuids().map(lambda u: u.hex),  # well formed without dashes
    st.uuids().map(lambda u: "{" + str(u).upper() + "}"),
)


_JSON_TYPE = "application/json"
_FORM = "application/x-www-form-urlencoded"
# Past the 2,000 characters of a message, and past Django's DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB).
_HUGE = (10_000, 100_000, 1_000_000, 3_000_000)


@dataclass(frozen=True)
class Body:
    """One HTTP request to the send endpoint: its raw body and content type, and whether it must be
    refused (``bad``), must be taken (a valid text goes through the chat turn), or may be either
    (``bad`` None: a body whose reading is the parser's call)."""

    body: bytes
    content_type: str
    bad: bool | None
    what: str
    text: str = ""  # the text it carries, if any


def _json(value: Any) -> bytes:
    return json.dumps(value).encode()


# What pydantic's ``strip_whitespace`` strips (Unicode White_Space; Python's ``str.strip`` also strips
# the separators U+001C to U+001F).
_WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000")
)


def expected_ok(value: Any) -> bool:
    """Whether the chat must take this ``text``: a string with 1 to MESSAGE_MAX_CHARS characters once
    trimmed, something left once control characters are stripped, and no lone surrogate."""
    if not isinstance(value, str) or not 1 <= len(value.strip(_WHITE_SPACE)) <= MESSAGE_MAX_CHARS:
        return False
    try:
        value.encode()
    except UnicodeEncodeError:
        return False
    return bool(clean_text(value))


def _text_of(value: Any) -> str:
    return value.get("text", "") if isinstance(value, dict) and isinstance(value.get("text"), str) else ""


def _garbage_ids(real: Callable[[], list[str]]) -> st.SearchStrategy[Any]:
    """Undo ids: garbage, well formed but nobody's, and real runs (another user's, our own)."""
    return st.one_of(
        _GARBAGE_ID,
        st.integers(min_value=0, max_value=10**6).map(lambda i: _pick(real(), i)),
    )


def _pick(ids: list[str], i: int) -> str:
    return ids[i % len(ids)] if ids else str(uuid.UUID(int=i))


_NOT_JSON = [
    b"",
    b"{",
    b'{"text": ',
    b'{"text": "unterminated',
    b"{'text': 'single quotes'}",
    b'{"text": "a",}',
    b"NaN",
    b'{"text": NaN}',
    b'{"text": Infinity}',
    b"\xff\xfe{\x00",
    b'{"text": "caf\xe9"}',  # Latin-1, not UTF-8
    b"\xef\xbb\xbf{}",  # a byte order mark before the object
    b'{"text": "\\ud800"}',  # an escaped lone surrogate
    b'{"text": "\\udfff\\ud800 move my gym"}',
    b'{"text": "\\u0000"}',
    b'{"text": "a\\u0000b"}',
    b'{"text": "\\u0000\\u0001\\u001b"}',
    b"[" * 5000 + b"]" * 5000,  # deeper than the JSON decoder's recursion limit
    b'{"text": ' + b"[" * 3000 + b"]" * 3000 + b"}",
    b'{"text": "x", "text": "y"}',  # duplicate keys: the last wins
    b'{"text": 1e999}',
    b'{"text": "hello", "undo": 1e999}',
]


_MULTIPART_TYPE = "multipart/form-data; boundary=x"
_MULTIPART = [
    Body(
        b'--x\r\nContent-Disposition: form-data; name="text"\r\n\r\nhello\r\n--x--\r\n',
        _MULTIPART_TYPE,
        False,
        "multipart",
        "hello",
    ),
    # never closed: Django's parser takes what it has
    Body(
        b'--x\r\nContent-Disposition: form-data; name="text"\r\n\r\nhello',
        _MULTIPART_TYPE,
        None,
        "multipart",
        "hello",
    ),
    Body(
        b'--x\r\nContent-Disposition: form-data; name="text"\r\n\r\n\x00\x01\r\n--x--\r\n',
        _MULTIPART_TYPE,
        True,
        "multipart",
    ),
    Body(b"--y\r\n\r\n--y--", _MULTIPART_TYPE, True, "multipart"),
    Body(b"--x\r\nContent-Disposition: form-data\r\n\r\n", _MULTIPART_TYPE, True, "multipart"),
    Body(b"garbage", _MULTIPART_TYPE, True, "multipart"),
    Body(b"--x--", "multipart/form-data", True, "multipart without a boundary"),
    Body(b"--x--", "multipart/form-data; boundary=", True, "multipart with an empty boundary"),
]
# Built once: drawing them anew each time would cost more than sending them.
_MANY_FIELDS = [
    Body(b"&".join(b"f%d=1" % i for i in range(n)) + b"&text=hello", _FORM, bad=True, what="1000+ fields")
    for n in (1001, 5000)
]
_HUGE_BODIES = [
    *(Body(_json({"text": "move " * (n // 5)}), _JSON_TYPE, bad=True, what="huge body") for n in _HUGE),
    *(Body(b"text=" + b"move+" * (n // 5), _FORM, bad=True, what="huge form") for n in _HUGE),
]


def malformed_bodies(run_ids: Callable[[], list[str]]) -> st.SearchStrategy[Body]:
    """Requests the page never sends; ``run_ids`` gives real run ids to send as undo ids."""
    json_type, form_type = _JSON_TYPE, _FORM
    not_json = st.one_of(
        st.binary(max_size=60),
        st.text(_ANY_CHAR, max_size=60).map(str.encode),
        st.sampled_from(_NOT_JSON),
    ).map(lambda b: Body(b, json_type, bad=_decoded_is_bad(b), what="not JSON or odd JSON", text=_decoded(b)))
    wrong_shape = _JSON.filter(lambda v: not isinstance(v, dict)).map(
        lambda v: Body(_json(v), json_type, bad=True, what="JSON that is not an object")
    )
    wrong_text = _NOT_A_STRING.map(lambda v: Body(_json({"text": v}), json_type, bad=True, what="text type"))
    missing_text = st.dictionaries(
        st.text(_ANY_CHAR, max_size=8).filter(lambda k: k != "text"), _JSON, max_size=4
    ).map(lambda d: Body(_json(d), json_type, bad=True, what="no text"))
    extra_fields = st.tuples(
        chat_texts(),
        st.dictionaries(
            st.sampled_from(["type", "id", "user", "user_id", "conversation", "run", "kind"]), _JSON
        ),
    ).map(
        lambda p: Body(
            _json({**p[1], "text": p[0]}),
            json_type,
            bad=not expected_ok(p[0]),
            what="extra fields",
            text=p[0],
        )
    )
    undo = st.tuples(st.sampled_from(["undo", "Undo that", "yes", "no"]), _garbage_ids(run_ids)).map(
        lambda p: Body(
            _json({"text": p[0], "undo": p[1]}),
            json_type,
            bad=not _undo_ok(p[1]),
            what="undo id",
            text=p[0],
        )
    )
    wrong_type = st.tuples(
        chat_texts(),
        st.sampled_from(
            ["text/plain", "application/xml", "multipart/form-data; boundary=x", "", "application/json5"]
        ),
    ).map(lambda p: Body(_json({"text": p[0]}), p[1], bad=True, what="wrong content type", text=p[0]))
    multipart = st.sampled_from(_MULTIPART)
    form = st.dictionaries(st.sampled_from(["text", "undo", "x"]), st.text(_ANY_CHAR, max_size=30)).map(
        lambda d: Body(_form(d), form_type, bad=_form_is_bad(d), what="form post", text=d.get("text", ""))
    )
    many_fields = st.sampled_from(_MANY_FIELDS)
    huge = st.sampled_from(_HUGE_BODIES)
    return st.one_of(
        not_json,
        wrong_shape,
        wrong_text,
        missing_text,
        extra_fields,
        undo,
        wrong_type,
        multipart,
        form,
        many_fields,
        huge,
    )


def _decoded(raw: bytes) -> str:
    try:
        return _text_of(json.loads(raw))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return ""


def _decoded_is_bad(raw: bytes) -> bool:
    try:
        value = json.loads(raw or b"null")
    except (ValueError, UnicodeDecodeError, RecursionError):
        return True
    if not isinstance(value, dict):
        return True
    return not expected_ok(value.get("text")) or not _undo_ok(value.get("undo"))


_UUID = TypeAdapter(uuid.UUID)


def _undo_ok(value: Any) -> bool:
    """Whether ``undo`` is absent or a run id (pydantic reads ids with or without dashes or braces)."""
    if value is None:
        return True
    try:
        _UUID.validate_python(value)
    except ValidationError:
        return False
    return True


def _form(data: dict[str, str]) -> bytes:
    return urlencode(data).encode()


def _form_is_bad(data: dict[str, str]) -> bool:
    return not expected_ok(data.get("text")) or ("undo" in data and not _undo_ok(data["undo"]))


# -- websocket frames --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    """One websocket frame: text or binary, whether the consumer must answer it with an error, and
    the chat text it carries if not."""

    raw: str | None
    data: bytes | None
    bad: bool
    what: str
    text: str = ""


_ODD_FRAMES = [
    "",
    "{",
    "null",
    "NaN",
    "{}",
    '{"type": "chat.send", "text": NaN}',
    '{"type": "chat.send", "text": Infinity}',
    '{"type": "chat.send", "text": "\\ud800"}',
    '{"type": "chat.send", "text": "a\\u0000b"}',
    '{"type": "chat.send", "text": "\\u0000\\u0001"}',
    "[" * 5000 + "]" * 5000,
    '{"type": "chat.send", "text": ' + "[" * 3000 + "]" * 3000 + "}",
    '{"type": "chat.send", "text": "x", "text": "y"}',
    '{"type": "chat.send", "text": "hello", "undo": 1e999}',
]


_HUGE_FRAMES = [
    Frame(json.dumps({"type": "chat.send", "text": "move " * (n // 5)}), None, bad=True, what="huge frame")
    for n in _HUGE
]


def malformed_frames(run_ids: Callable[[], list[str]]) -> st.SearchStrategy[Frame]:
    """Frames the page never sends; ``run_ids`` gives real run ids to send as undo ids."""

    def text_frame(raw: str, what: str) -> Frame:
        return Frame(raw, None, bad=_frame_is_bad(raw), what=what, text=_frame_text(raw))

    binary = st.one_of(
        st.binary(max_size=200),
        st.sampled_from([b'{"type": "chat.send", "text": "hello"}', b"\x00" * 1000]),
    ).map(lambda b: Frame(None, b, bad=True, what="binary"))
    not_json = st.one_of(st.text(_ANY_CHAR, max_size=60), st.sampled_from(_ODD_FRAMES)).map(
        lambda s: text_frame(s, "not JSON or odd JSON")
    )
    wrong_shape = _JSON.filter(lambda v: not isinstance(v, dict)).map(
        lambda v: text_frame(json.dumps(v), "JSON that is not an object")
    )
    wrong_type = st.tuples(
        st.one_of(_NOT_A_STRING, st.sampled_from(["chat.message", "chat_send", "CHAT.SEND", "", "error"])),
        chat_texts(),
    ).map(lambda p: text_frame(json.dumps({"type": p[0], "text": p[1]}), "wrong type"))
    wrong_text = _NOT_A_STRING.map(lambda v: text_frame(json.dumps({"type": "chat.send", "text": v}), "text"))
    undo = st.tuples(st.sampled_from(["undo", "yes", "Undo that"]), _garbage_ids(run_ids)).map(
        lambda p: text_frame(json.dumps({"type": "chat.send", "text": p[0], "undo": p[1]}), "undo id")
    )
    missing = st.dictionaries(st.sampled_from(["type", "undo", "x", "message"]), _JSON, max_size=3).map(
        lambda d: text_frame(json.dumps(d), "missing fields")
    )
    extra = st.tuples(
        chat_texts(), st.dictionaries(st.sampled_from(["user", "conversation_id", "run", "kind"]), _JSON)
    ).map(lambda p: text_frame(json.dumps({**p[1], "type": "chat.send", "text": p[0]}), "extra fields"))
    huge = st.sampled_from(_HUGE_FRAMES)
    return st.one_of(binary, not_json, wrong_shape, wrong_type, wrong_text, undo, missing, extra, huge)


def _frame_text(raw: str) -> str:
    try:
        return _text_of(json.loads(raw))
    except (ValueError, RecursionError):
        return ""


def _frame_is_bad(raw: str) -> bool:
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return True
    if not isinstance(value, dict) or value.get("type") != "chat.send":
        return True
    return not expected_ok(value.get("text")) or not _undo_ok(value.get("undo"))
