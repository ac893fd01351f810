"""CalDAV calendars (Nextcloud, iCloud, Fastmail, Radicale...): discovery, sync into the mirror, writes.

- :func:`connect_account`: discover a principal's calendars from a server URL, a user name and an
  app password; they become :class:`~skills.models.Calendar` rows of a new account (``remote_id`` the
  collection URL), the credentials stored encrypted.
- :func:`sync_account`: mirror the account's calendars into the built-in store (``sync-collection``
  where the server has it, else ctag and etags).
- :class:`CaldavProvider`: registered as ``"caldav"`` in ``CALENDAR_PROVIDERS``; reads from the
  mirror, writes to the server with ``If-None-Match``/``If-Match`` and then to the mirror.
"""

from skills.providers.caldav.provider import CaldavProvider
from skills.providers.caldav.sync import SyncReport, connect_account, sync_account

__all__ = ["CaldavProvider", "SyncReport", "connect_account", "sync_account"]
