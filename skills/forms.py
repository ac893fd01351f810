"""The calendar accounts pages' forms: connecting a CalDAV server and choosing calendars."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.forms import BoundField

from skills.accounts import AccountSummary, Choice

__all__ = ["CaldavForm", "CalendarChoicesForm", "PickerRow", "PickerSection", "ReconnectCaldavForm"]

PICKER_FORM_ID = "calendar-choices"


class CaldavForm(forms.Form):
    """A CalDAV server, a user name and an app password; the password is never sent back to the
    browser (not even when the form is shown again with an error)."""

    url = forms.URLField(
        label="Server address",
        max_length=1000,
        assume_scheme="https",
        help_text="e.g. https://cloud.example.org/remote.php/dav (Nextcloud) or https://caldav.fastmail.com/",
    )
    username = forms.CharField(label="User name", max_length=200)
    password = forms.CharField(
        label="App password",
        max_length=500,
        strip=False,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text="Make an app password for this site in your provider's security settings.",
    )
    display_name = forms.CharField(
        label="Name for this account", max_length=200, required=False, help_text="Optional."
    )


class ReconnectCaldavForm(CaldavForm):
    """The same, for an account already connected: its name stays."""

    display_name = None  # type: ignore[assignment]


@dataclass
class PickerRow:
    choice: Choice
    read: BoundField | None  # None for a built-in calendar: it is always read
    write: BoundField
    is_default: bool


@dataclass
class PickerSection:
    summary: AccountSummary
    rows: list[PickerRow]


class CalendarChoicesForm(forms.Form):
    """Which calendars the assistant may read and change, and the default for new events.

    One form for all the owner's calendars (only one can be the default), with fields named by each
    calendar's :attr:`Choice.prefix`; its inputs sit in each account's table and name the form by id
    (``form="calendar-choices"``), so the accounts' own buttons can be forms of their own.
    """

    default = forms.ChoiceField(required=False, widget=forms.RadioSelect)

    def __init__(self, summaries: list[AccountSummary], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.summaries = summaries
        attrs = {"form": PICKER_FORM_ID}
        defaults: list[tuple[str, str]] = [("", "No default")]
        for summary in summaries:
            for choice in summary.choices:
                if summary.account is not None:
                    self.fields[f"{choice.prefix}-read"] = forms.BooleanField(
                        required=False,
                        initial=choice.read,
                        label=f"The assistant may read {choice.name}",
                        widget=forms.CheckboxInput(attrs=attrs),
                    )
                self.fields[f"{choice.prefix}-write"] = forms.BooleanField(
                    required=False,
                    initial=choice.writable,
                    label=f"The assistant may change {choice.name}",
                    widget=forms.CheckboxInput(attrs=attrs),
                )
                if choice.calendar is not None:
                    defaults.append((str(choice.calendar.pk), choice.name))
                    if choice.calendar.is_default:
                        self.fields["default"].initial = str(choice.calendar.pk)
        default = self.fields["default"]
        assert isinstance(default, forms.ChoiceField)
        default.choices = defaults

    def clean(self) -> dict[str, Any]:
        """The default for new events must stay a calendar the assistant reads and may change."""
        data = super().clean() or {}
        chosen = data.get("default") or ""
        for summary in self.summaries:
            for choice in summary.choices:
                if choice.calendar is None or str(choice.calendar.pk) != chosen:
                    continue
                if summary.account is not None and not data.get(f"{choice.prefix}-read"):
                    self.add_error(
                        "default", f"New events go to {choice.name}, so the assistant has to read it."
                    )
                elif not data.get(f"{choice.prefix}-write"):
                    self.add_error(
                        "default",
                        f"New events go to {choice.name}, so the assistant has to be allowed to change it.",
                    )
        return data

    def sections(self) -> list[PickerSection]:
        """The fields per account, as the page lays them out."""
        chosen = str(self["default"].value() or "")
        return [
            PickerSection(
                summary,
                [
                    PickerRow(
                        choice,
                        self[f"{choice.prefix}-read"] if summary.account is not None else None,
                        self[f"{choice.prefix}-write"],
                        choice.calendar is not None and str(choice.calendar.pk) == chosen,
                    )
                    for choice in summary.choices
                ],
            )
            for summary in self.summaries
        ]
