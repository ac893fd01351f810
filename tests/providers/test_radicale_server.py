"""The Radicale fixture itself: a real server with htpasswd auth and a user's calendars."""

from __future__ import annotations

import niquests

from tests.providers.radicale_server import DavUser, RadicaleServer, dav_user, radicale_server

__all__ = ["dav_user", "radicale_server"]


def test_a_user_reads_their_calendar_and_nobody_else_does(
    radicale_server: RadicaleServer, dav_user: DavUser
) -> None:
    url = dav_user.calendars["work"]
    ok = niquests.request("PROPFIND", url, auth=(dav_user.name, dav_user.password), headers={"Depth": "0"})
    assert ok.status_code == 207
    assert b"Work" in (ok.content or b"")
    wrong = niquests.request("PROPFIND", url, auth=(dav_user.name, "not-it"), headers={"Depth": "0"})
    assert wrong.status_code == 401
    other, password = radicale_server.add_user()
    theirs = niquests.request("PROPFIND", url, auth=(other, password), headers={"Depth": "0"})
    assert theirs.status_code in (403, 404)


def test_requests_are_counted(radicale_server: RadicaleServer, dav_user: DavUser) -> None:
    radicale_server.reset_log()
    niquests.request("PROPFIND", dav_user.calendars["home"], auth=(dav_user.name, dav_user.password))
    assert radicale_server.count("PROPFIND") == 1
    assert radicale_server.requests[0].path.endswith("/home/")
