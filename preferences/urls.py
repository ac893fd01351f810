"""The settings page (included under ``/settings/`` by ``assistant.urls``)."""

from __future__ import annotations

from django.urls import URLPattern, path

from preferences import views

app_name = "preferences"

urlpatterns: list[URLPattern] = [
    path("", views.settings_page, name="settings"),
]
