"""The chat page in a real browser, against a real server: sign in, ask about the week, read the answer.

How the server runs: this test does not use pytest-django's test database, because that one lives in
memory and a separate server process cannot see it (Channels' ``ChannelsLiveServerTestCase`` refuses
it for the same reason, and the settings give no file-backed test database).  Instead the test makes a
throwaway SQLite file in a temporary directory, migrates it and seeds it in subprocesses (this file doubles as
the seeding script), and starts ``daphne assistant.asgi:application`` on a free loopback port (static
files come from WhiteNoise, which reads them from the apps with DEBUG on).  The server is then what an
operator runs, with websockets, the in-memory channel layer and Celery in eager mode.

The clock cannot be fixed across processes, so the seeded event is placed relative to the real
current week (see :func:`event_slot`).
"""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from itertools import pairwise
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
from playwright.sync_api import (
    Browser,
    ConsoleMessage,
    Locator,
    Page,
    WebSocketRoute,
    expect,
    sync_playwright,
)

CHROMIUM = "/usr/bin/chromium"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing (apt-get install chromium)"
    ),
]

PROJECT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEZONE = "America/New_York"
USERNAME = "ada"
PASSWORD = "a calm and long passphrase"
EVENT_SUMMARY = "Dinner with Marguerite"
# Next week (weekday from Monday, hour, minutes, summary): two standups to move and a lunch beside them.
STANDUPS_AND_LUNCH = [(1, 9, 15, "Standup"), (3, 9, 15, "Standup"), (2, 12, 60, "Team lunch")]
SCREENSHOT = Path("/tmp/chat.png")
PREVIEW_SCREENSHOT = Path("/tmp/chat-preview.png")
ASGI_APPLICATION = "assistant.asgi:application"
SERVER_START_TIMEOUT = 60
REPLY_TIMEOUT_MS = 60_000


def event_slot(now: datetime) -> tuple[datetime, datetime]:
    """A half hour that is certainly inside the Monday–Sunday week of ``now`` (a local, aware time).

    Today at 23:00 while that is still ahead; else tomorrow at noon, unless today is Sunday, whose
    noon then is the only slot of this week left that is not in the next one.
    """
    today = now.date()
    tonight = datetime.combine(today, datetime.min.time().replace(hour=23), tzinfo=now.tzinfo)
    if now + timedelta(minutes=30) < tonight:
        start = tonight
    elif today.weekday() < 6:
        start = datetime.combine(
            today + timedelta(days=1), datetime.min.time().replace(hour=12), tzinfo=now.tzinfo
        )
    else:
        start = datetime.combine(today, datetime.min.time().replace(hour=12), tzinfo=now.tzinfo)
    monday = today - timedelta(days=today.weekday())
    assert monday <= start.date() < monday + timedelta(days=7)
    return start, start + timedelta(minutes=30)


def seed() -> dict[str, str]:
    """Run inside the server's database (as a subprocess): one user, a calendar and an event this week."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assistant.settings")
    django.setup()
    from django.contrib.auth import get_user_model

    from preferences.services import preference_set
    from skills.services import calendar_create, event_create

    user = get_user_model().objects.create_user(username=USERNAME, password=PASSWORD)
    preference_set(user=user, key="timezone", value=TIMEZONE)
    calendar = calendar_create(
        owner=user, key="personal", name="Personal", timezone=TIMEZONE, is_default=True
    )
    now = datetime.now(ZoneInfo(TIMEZONE))
    start, end = event_slot(now)
    event_create(calendar=calendar, summary=EVENT_SUMMARY, start=start, end=end, timezone=TIMEZONE)
    next_monday = now.date() + timedelta(days=7 - now.weekday())
    for day, hour, minutes, summary in STANDUPS_AND_LUNCH:
        begin = datetime.combine(next_monday + timedelta(days=day), datetime.min.time(), tzinfo=now.tzinfo)
        begin += timedelta(hours=hour)
        event_create(
            calendar=calendar,
            summary=summary,
            start=begin,
            end=begin + timedelta(minutes=minutes),
            timezone=TIMEZONE,
        )
    return {"start": start.isoformat(), "end": end.isoformat()}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(database: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DEBUG="1",
        DJANGO_SETTINGS_MODULE="assistant.settings",
        DATABASE_URL=f"sqlite:///{database}",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        REDIS_URL="",
        CELERY_BROKER_URL="memory://",
        ASSISTANT_DECOMPOSER=os.environ.get("ASSISTANT_DECOMPOSER", "rules"),
        PYTHONPATH=str(PROJECT),
        PYTHONUNBUFFERED="1",
    )
    return env


def run(args: list[str], env: dict[str, str]) -> str:
    result = subprocess.run(
        [sys.executable, *args],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    if result.returncode != 0:
        pytest.fail(f"{' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("browser") / "browser.sqlite3"


@pytest.fixture(scope="module")
def live_server_url(database: Path) -> Iterator[str]:
    """A migrated, seeded database file and a Daphne server on it; yields the server's base URL."""
    workdir = database.parent
    env = server_env(database)
    run(["manage.py", "migrate", "--noinput"], env)
    run([str(Path(__file__)), "seed"], env)
    port = free_port()
    log_path = workdir / "server.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "assistant.asgi:application",
            ],
            cwd=PROJECT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + SERVER_START_TIMEOUT
            while True:
                if server.poll() is not None:
                    pytest.fail("the server exited:\n" + log_path.read_text())
                try:
                    with urllib.request.urlopen(f"{base}/healthz/", timeout=2) as response:
                        if response.status == 200:
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    pytest.fail("the server did not answer /healthz/:\n" + log_path.read_text())
                time.sleep(0.2)
            yield base
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Browser, live_server_url: str) -> Iterator[Page]:
    """A fresh, signed-in page (its own cookies) on a new conversation; fails on any script error."""
    context = browser.new_context(viewport={"width": 1280, "height": 820}, base_url=live_server_url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto("/")
    page.get_by_label("Username").fill(USERNAME)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/c/*/")
    page.get_by_role("button", name="New conversation").click()
    page.wait_for_url("**/c/*/")
    try:
        yield page
    finally:
        context.close()
    assert errors == [], f"script errors on the page: {errors}"


def ask(page: Page, text: str) -> Locator:
    """Type a message, send it, and return the assistant's reply to it once it is shown."""
    page.get_by_role("textbox", name="Message").fill(text)
    page.get_by_role("button", name="Send").click()
    expect(page.locator(".message-user").last).to_contain_text(text)
    reply = page.locator(".message-user").last.locator("xpath=following-sibling::li[@data-kind]").first
    reply.wait_for(timeout=REPLY_TIMEOUT_MS)
    return reply


def test_week_question_is_answered_over_the_websocket(page: Page) -> None:
    expect(page.locator("#connection")).to_have_attribute("data-state", "online")

    reply = ask(page, "What's my week look like?")

    page.screenshot(path=str(SCREENSHOT), full_page=True)  # before asserting, to see failures too
    expect(reply).to_have_attribute("data-kind", "answer")
    expect(reply.locator(".kind")).to_have_text("answer")
    expect(reply.locator(".message-text")).to_contain_text(EVENT_SUMMARY)
    expect(page.get_by_role("button", name="Send")).to_be_enabled()
    expect(page.locator("#chat-title")).to_have_text("What's my week look like?")


def test_week_question_is_answered_over_http_without_a_websocket(page: Page) -> None:
    """With no websocket (a proxy that drops upgrades), the page sends through ``send/`` instead."""
    page.add_init_script("window.WebSocket = undefined;")
    page.reload()
    expect(page.locator("#connection")).to_have_attribute("data-state", "offline")

    reply = ask(page, "What's my week look like?")

    expect(reply).to_have_attribute("data-kind", "answer")
    expect(reply.locator(".message-text")).to_contain_text(EVENT_SUMMARY)
    expect(page.locator(".message-user")).to_have_count(1)  # rendered once, not pending plus echo


def test_a_reply_lost_on_the_socket_is_fetched_once_its_run_settled(page: Page) -> None:
    """The reply travels beside the run's ``workflow.finished``; a page that got the one but not the
    other (a channel layer dropping a message) fetches the reply instead of waiting forever."""
    dropped: list[str] = []

    def lose_replies(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            event = json.loads(message)
            if event.get("type") == "chat.message" and event["message"]["role"] == "assistant":
                dropped.append(event["message"]["text"])
                return
            ws.send(message)

        server.on_message(to_page)

    page.route_web_socket(re.compile(r"/ws/c/"), lose_replies)
    page.reload()
    expect(page.locator("#connection")).to_have_attribute("data-state", "online")

    reply = ask(page, "What's my week look like?")

    expect(reply).to_have_attribute("data-kind", "answer")
    expect(reply.locator(".message-text")).to_contain_text(EVENT_SUMMARY)
    (lost,) = dropped  # it did come over HTTP, not over the socket
    assert EVENT_SUMMARY in lost
    expect(page.get_by_role("button", name="Send")).to_be_enabled()


def test_a_socket_closed_for_a_retry_is_retried_after_growing_pauses(page: Page) -> None:
    """1013 (the server's channel layer is down): the server accepts the socket, then closes it.  The
    page keeps retrying, each pause twice the last, rather than once a second for as long as the
    outage lasts (an open socket used to start the pauses again), and goes live once it is back."""
    attempts: list[float] = []
    opened: list[WebSocketRoute] = []
    outage = {"on": True}

    def layer_down(ws: WebSocketRoute) -> None:
        attempts.append(time.monotonic())
        if outage["on"]:
            opened.append(ws)  # the page sees it open, as the server's accept; closed a moment later
        else:
            ws.connect_to_server()

    page.route_web_socket(re.compile(r"/ws/c/"), layer_down)
    page.reload()
    deadline = time.monotonic() + 7.5  # attempts at about 0, 1, 3 and 7 s
    while time.monotonic() < deadline:
        page.wait_for_timeout(100)  # the routes' handlers run while Playwright waits
        while opened:
            opened.pop().close(code=1013, reason="")
    pauses = [later - earlier for earlier, later in pairwise(attempts)]
    assert len(attempts) == 4, pauses
    assert all(later > 1.5 * earlier for earlier, later in pairwise(pauses)), pauses
    expect(page.locator("#connection")).to_have_text("Reconnecting…")

    outage["on"] = False
    expect(page.locator("#connection")).to_have_attribute("data-state", "online", timeout=15_000)


def standup_starts(database: Path) -> list[str]:
    """The standups' stored start times (UTC), read from the server's database file."""
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT start FROM skills_event WHERE summary = 'Standup' ORDER BY start")
        return [str(row[0]) for row in rows.fetchall()]


def test_a_bulk_move_is_approved_from_the_week_view_and_then_undone(page: Page, database: Path) -> None:
    before = standup_starts(database)

    preview = ask(page, "Move all my standups next week one hour later")

    page.screenshot(path=str(PREVIEW_SCREENSHOT), full_page=True)
    expect(preview).to_have_attribute("data-kind", "confirm")
    week = preview.get_by_role("figure", name="Week view of the proposed changes")
    expect(week.locator("[data-change=moved-from]")).to_have_count(2)
    expect(week.locator("[data-change=moved-to]")).to_have_count(2)
    expect(week.locator("[data-change=existing]")).to_contain_text(["Team lunch"])
    expect(week.locator("[data-change=moved-to]").first).to_contain_text("10:00")
    assert standup_starts(database) == before  # nothing changes before the approval

    preview.get_by_role("button", name="Approve").click()
    done = page.locator(".message-assistant[data-kind=done]").last
    expect(done).to_contain_text("Done: 2 changes", timeout=REPLY_TIMEOUT_MS)
    moved = standup_starts(database)
    assert len(moved) == 2
    pairs = zip(moved, before, strict=True)
    shifts = [datetime.fromisoformat(m) - datetime.fromisoformat(b) for m, b in pairs]
    assert shifts == [timedelta(hours=1)] * 2

    done.get_by_role("button", name="Undo").click()
    undone = page.locator(".message-assistant[data-kind=done]").last
    expect(undone).to_contain_text("Undone: 2 changes", timeout=REPLY_TIMEOUT_MS)
    expect(undone.get_by_role("button", name="Redo")).to_be_visible()
    expect(page.locator(".message-user").last).to_have_text(re.compile("Undo that"))
    assert standup_starts(database) == before


def spoken_day(day: date) -> str:
    """A day as the chat reads it and writes it back: "Friday, January 8" (the reply gives no year)."""
    return f"{day:%A}, {day:%B} {day.day}"


def test_lunch_set_on_the_settings_page_is_kept_free_by_a_chat_proposal(page: Page) -> None:
    """Lunch saved with the settings page's own time inputs moves the call the chat then proposes.

    Before, "a 1-hour call ... in the afternoon" is put at noon.  Lunch is then set to 12:30-1:30 PM
    (not the 12:00-1:00 PM the empty form suggests, so what counts is what was typed), and on later days
    the free time stops at 12:30 PM and resumes at 1:30 PM, and the same call is put at 1:30 PM.  The
    days are two weeks ahead, clear of every seeded event; the lunch is removed on the page at the end.
    """
    today = datetime.now(ZoneInfo(TIMEZONE)).date()
    before_day, free_day, call_day = (today + timedelta(days=14 + n) for n in range(3))
    in_words = {day: f"{spoken_day(day)}, {day.year}" for day in (before_day, free_day, call_day)}

    before = ask(page, f"Schedule a 1-hour call with Sam on {in_words[before_day]} in the afternoon")
    expect(before).to_have_attribute("data-kind", "done")
    expect(before.locator(".message-text")).to_contain_text(
        f"'Call with Sam': {spoken_day(before_day)} 12:00 PM – 1:00 PM"
    )

    page.get_by_role("link", name="Settings").click()
    page.wait_for_url("**/settings/")
    lunch = page.get_by_role("region", name="Lunch", exact=True)
    expect(lunch.get_by_test_id("value-lunch_hours")).to_have_text("Not set")
    lunch.get_by_text("Set your lunch").click()
    expect(lunch.get_by_label("Start")).to_have_value("12:00")  # the suggestion, not yet saved
    lunch.get_by_label("Start").fill("12:30")
    lunch.get_by_label("End").fill("13:30")
    lunch.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_have_text("Saved your lunch: every day, 12:30 PM to 1:30 PM.")
    expect(lunch.get_by_test_id("value-lunch_hours")).to_have_text("every day, 12:30 PM to 1:30 PM")

    page.get_by_role("link", name="Back to the chat").click()
    page.wait_for_url("**/c/*/")
    free = ask(page, f"When am I free on {in_words[free_day]}?")
    expect(free).to_have_attribute("data-kind", "answer")
    expect(free.locator(".message-text")).to_contain_text(f"You are free on {spoken_day(free_day)}: ")
    expect(free.locator(".message-text")).to_contain_text("– 12:30 PM, 1:30 PM –")

    call = ask(page, f"Schedule a 1-hour call with Sam on {in_words[call_day]} in the afternoon")
    expect(call).to_have_attribute("data-kind", "done")
    expect(call.locator(".message-text")).to_contain_text(
        f"'Call with Sam': {spoken_day(call_day)} 1:30 PM – 2:30 PM"
    )

    page.get_by_role("link", name="Settings").click()
    lunch.get_by_text("Change your lunch").click()
    lunch.get_by_role("button", name="Remove").click()
    expect(page.get_by_role("status")).to_have_text("Removed your lunch.")
    expect(lunch.get_by_test_id("value-lunch_hours")).to_have_text("Not set")


# -- the Content-Security-Policy, enforced ---------------------------------------------------------


@pytest.fixture
def violations(page: Page) -> Iterator[list[str]]:
    """What the policy blocks in the pages loaded from now on; asserted to be nothing at the end.

    Chromium reports each script, stylesheet or connection a policy stopped on the console ("...
    violates the following Content Security Policy directive ..."), even when the page looks right.
    """
    blocked: list[str] = []

    def listen(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            blocked.append(message.text)

    page.on("console", listen)
    yield blocked
    assert blocked == [], f"the Content-Security-Policy blocked: {blocked}"


def test_the_chat_works_over_its_websocket_within_the_policy(page: Page, violations: list[str]) -> None:
    response = page.reload()  # loaded again, with the console listened to
    assert response is not None
    header = response.headers["content-security-policy"]
    assert "script-src 'self'" in header
    assert "unsafe-inline" not in header

    expect(page.locator("#connection")).to_have_attribute("data-state", "online")  # the socket connected
    expect(ask(page, "What's my week look like?")).to_contain_text(EVENT_SUMMARY)
    # chat.css applied: a blocked stylesheet would leave the sidebar a plain block.
    assert page.locator("#app").evaluate("e => getComputedStyle(e).display") == "grid"


def test_the_settings_page_is_styled_by_its_stylesheet_within_the_policy(
    page: Page, violations: list[str]
) -> None:
    page.get_by_role("link", name="Settings").click()
    page.wait_for_url("**/settings/")
    # settings.css, an inline <style> before the policy: the page is a 46rem column.
    assert page.locator("main.settings").evaluate("e => getComputedStyle(e).maxWidth") == "736px"


if __name__ == "__main__":  # the seeding subprocess: ``python tests/assistant/test_browser.py seed``
    if sys.argv[1:] != ["seed"]:
        sys.exit("usage: test_browser.py seed")
    sys.path.insert(0, str(PROJECT))
    print(json.dumps(seed()))
