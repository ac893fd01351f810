"""Settings → Calendars (included under ``/settings/calendars/`` by ``assistant.urls``)."""

from __future__ import annotations

from django.urls import URLPattern, path

from skills import views

app_name = "calendars"

urlpatterns: list[URLPattern] = [
    path("", views.calendars_page, name="page"),
    path("choices/", views.calendar_choices, name="choices"),
    path("google/connect/", views.google_connect, name="google_connect"),
    path("google/callback/", views.google_callback, name="google_callback"),
    path("caldav/connect/", views.caldav_connect, name="caldav_connect"),
    path("<int:pk>/reconnect/", views.account_reconnect, name="reconnect"),
    path("<int:pk>/sync/", views.account_sync, name="sync"),
    path("<int:pk>/disconnect/", views.account_disconnect, name="disconnect"),
]
