"""Google Calendar: a provider that mirrors an account's calendars into the built-in store.

- :mod:`.client`: the Calendar v3 client of one account (credentials, retries, errors);
- :mod:`.mirror`: Google events ↔ the mirror's rows;
- :mod:`.sync`: calendar list and events into the mirror (full, then ``syncToken``, 410 → full);
- :mod:`.provider`: :class:`GoogleProvider`, registered as ``"google"`` in ``CALENDAR_PROVIDERS``.
"""

from skills.providers.google.provider import GoogleProvider

__all__ = ["GoogleProvider"]
