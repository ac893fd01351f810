"""``manage.py rotate_credentials``: re-encrypt every stored secret with the first CREDENTIAL_KEYS key.

Rotating a key: put the new key first in ``CREDENTIAL_KEYS`` (keeping the old one after it) on every
process and restart them, run this command, then remove the old key.  Until the command has run,
secrets made with the old key are still read through it; afterwards only the new key is needed.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError

from skills.crypto import SecretUnreadableError, rotate_token
from skills.models import CalendarAccount

# A process still running with the old settings may store a fresh token while this runs, so each
# row is replaced only if it still holds the token that was read (compare-and-set), and re-read if not.
_ATTEMPTS = 5


class Command(BaseCommand):
    help = (
        "Re-encrypt every stored calendar account credential with the first key of CREDENTIAL_KEYS "
        "(run after putting a new key first; then the old key can be removed)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        rotated = 0
        unreadable: list[int] = []
        accounts = CalendarAccount.objects.exclude(encrypted_credentials="").order_by("pk")
        for pk in list(accounts.values_list("pk", flat=True)):
            try:
                rotated += _rotate(pk)
            except SecretUnreadableError:
                unreadable.append(pk)
            except ImproperlyConfigured as exc:
                raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"Re-encrypted the credentials of {rotated} calendar account(s) with the first key."
        )
        if unreadable:
            ids = ", ".join(str(pk) for pk in unreadable)
            raise CommandError(
                f"No key in CREDENTIAL_KEYS decrypts the credentials of account(s) {ids}: put back the key "
                "they were made with and run this again, or have their owners connect them again."
            )


def _rotate(pk: int) -> int:
    """Re-encrypt one account's credentials; 1 if rotated, 0 if they were removed meanwhile."""
    for _ in range(_ATTEMPTS):
        token = CalendarAccount.objects.filter(pk=pk).values_list("encrypted_credentials", flat=True).first()
        if not token:
            return 0
        swapped = CalendarAccount.objects.filter(pk=pk, encrypted_credentials=token).update(
            encrypted_credentials=rotate_token(token)
        )
        if swapped:
            return 1
    raise CommandError(
        f"The credentials of account {pk} kept changing while being re-encrypted; run this again."
    )
