"""The mail server of the integration worker: one that has a hiccup, so a test can watch a retry."""

from __future__ import annotations

from collections.abc import Sequence
from smtplib import SMTPRecipientsRefused
from typing import ClassVar

from django.core.mail.backends import locmem
from django.core.mail.message import EmailMessage

__all__ = ["HiccupBackend"]


class HiccupBackend(locmem.EmailBackend):
    """Refuses an address whose local part ends in ``.flaky`` the first time it is mailed.

    What it saw is kept in the worker's memory (one process: ``--pool=solo``), so each test names an
    address of its own.
    """

    seen: ClassVar[set[str]] = set()

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        for message in email_messages:
            first = {to for to in message.to if to.split("@")[0].endswith(".flaky") and to not in self.seen}
            if first:
                self.seen.update(first)
                raise SMTPRecipientsRefused(dict.fromkeys(first, (451, b"4.3.0 Try again later")))
        return super().send_messages(email_messages)
