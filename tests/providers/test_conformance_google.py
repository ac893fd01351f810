"""The Google provider passes the shared conformance suite against the loopback Calendar v3 server
(the real google-api-python-client talking to it); reads come from the mirror, writes go to the
server first."""

from __future__ import annotations

import itertools
from datetime import datetime

import pytest

from tests.providers.conformance import ZONE, ProviderConformance, ProviderFactory
from tests.providers.google_fixtures import connect, google_server, google_settings
from tests.providers.google_server import GoogleCalendarServer

__all__ = ["google_server", "google_settings"]

_users = itertools.count(1)


@pytest.mark.django_db
class TestGoogleConformance(ProviderConformance):
    @pytest.fixture
    def provider_factory(
        self, db: None, google_server: GoogleCalendarServer, google_settings: None
    ) -> ProviderFactory:
        connected = connect(google_server, f"conf{next(_users)}", time_zone=ZONE)
        numbers = itertools.count(1)

        def make_busy(start: datetime, end: datetime) -> str:
            """Someone outside this instance, with a Google calendar the server holds."""
            email = f"outsider{next(_users)}-{next(numbers)}@gmail.example"
            google_server.add_account(email, time_zone=ZONE)
            google_server.seed_event(
                {
                    "summary": "Private matter",
                    "start": {"dateTime": start.isoformat(), "timeZone": ZONE},
                    "end": {"dateTime": end.isoformat(), "timeZone": ZONE},
                },
                calendar_id=email,
            )
            return email

        return ProviderFactory(
            new=connected.provider, calendar_id=str(connected.calendar.pk), make_busy=make_busy
        )
