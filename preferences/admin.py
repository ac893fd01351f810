"""The preference admin: the key is chosen from the known ones and each key is edited with its own
fields (time inputs, day checkboxes, a zone select, the user's calendars), never a raw JSON box.

The fields of every key are on the page, one fieldset per key (a small script shows only the chosen
key's); the chosen key's fields make the value, which the key's schema checks: a malformed value is
refused with the schema's message at the field it names.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin

from preferences.forms import KEY_FORMS, check_value, suggested
from preferences.models import Preference
from preferences.schema import KEYS, PreferenceError, validate_preference
from preferences.views import user_calendars
from preferences.wording import describe_preference

__all__ = ["PreferenceAdmin", "PreferenceAdminForm"]

KEY_CHOICES = [(key, f"{spec.label.capitalize()} ({key})") for key, spec in KEYS.items()]


def _value_fields() -> dict[str, forms.Field]:
    """Every key's fields, named ``<key>-<field>`` (the names the settings page's forms use)."""
    fields: dict[str, forms.Field] = {}
    for key, form_class in KEY_FORMS.items():
        prototype = form_class()
        for name, field in prototype.fields.items():
            fields[f"{key}-{name}"] = field
    return fields


class _PreferenceAdminForm(forms.ModelForm):
    key = forms.ChoiceField(
        choices=KEY_CHOICES,
        help_text="Which preference this is; fill in the fields of that preference below.",
    )

    class Meta:
        model = Preference
        fields = ["user", "key"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        instance = self.instance
        calendars = user_calendars(instance.user_id) if instance.user_id else None
        for key, form_class in KEY_FORMS.items():
            shown = instance.value if instance.pk and instance.key == key else suggested(key)
            sub = form_class(calendars=calendars, initial=form_class.initial_for(shown))
            for name, field in sub.fields.items():
                self.fields[f"{key}-{name}"] = field
                if name in sub.initial and f"{key}-{name}" not in self.initial:
                    self.initial[f"{key}-{name}"] = sub.initial[name]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        key = cleaned.get("key")
        if not key:
            return cleaned
        form_class = KEY_FORMS[key]
        raw = form_class.raw_value({name: cleaned.get(f"{key}-{name}") for name in form_class.base_fields})
        user = cleaned.get("user")
        value, problems = check_value(key, raw, user_calendars(user) if user else None)
        for problem in problems:
            name = form_class.field_for(problem.path, raw)
            self.add_error(f"{key}-{name}" if name else None, problem.message)
        if not problems:
            self.instance.value = value
        return cleaned

    def _post_clean(self) -> None:
        # A value this form refused is not on the instance: the model's own check would only repeat
        # the refusal, about a field ("value") the form does not have.
        if not self.errors:
            super()._post_clean()  # type: ignore[misc]


# The value fields must be declared on the class for the admin's fieldsets to name them.
PreferenceAdminForm: type[forms.ModelForm] = type(
    "PreferenceAdminForm", (_PreferenceAdminForm,), dict(_value_fields())
)


@admin.register(Preference)
class PreferenceAdmin(admin.ModelAdmin):
    form = PreferenceAdminForm
    list_display = ("user", "key_label", "value_in_words", "updated_at")
    list_filter = ("key",)
    search_fields = ("user__username", "user__email", "key")

    class Media:
        js = ("preferences/admin_key.js",)

    def get_fieldsets(self, request: Any, obj: Preference | None = None) -> Any:
        fieldsets: list[tuple[str | None, dict[str, Any]]] = [(None, {"fields": ["user", "key"]})]
        for key, form_class in KEY_FORMS.items():
            spec = KEYS[key]
            names = [f"{key}-{name}" for name in form_class.base_fields]
            fieldsets.append(
                (
                    spec.label.capitalize(),
                    {
                        "fields": names,
                        "classes": ["pref-value", f"pref-value-{key}"],
                        "description": spec.help,
                    },
                )
            )
        return fieldsets

    @admin.display(description="key", ordering="key")
    def key_label(self, obj: Preference) -> str:
        return obj.key

    @admin.display(description="value")
    def value_in_words(self, obj: Preference) -> str:
        try:
            value = validate_preference(obj.key, obj.value)
        except PreferenceError as exc:
            return f"Ignored (no longer valid): {exc}"
        calendars = user_calendars(obj.user_id) if obj.key.endswith("_calendar") else None
        return describe_preference(obj.key, value, calendars=calendars)
