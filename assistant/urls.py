"""The site's URLs: the chat page and its JSON fallback, settings (preferences, calendar accounts),
sign-in/out, the admin and a health check."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path

from assistant import views

__all__ = ["urlpatterns"]

urlpatterns: list[URLPattern | URLResolver] = [
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    # Django 5 only signs out on POST, so a link crawler or a prefetch cannot end the session.
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("healthz/", views.healthz, name="healthz"),
    path("settings/calendars/", include("skills.urls")),
    path("settings/", include("preferences.urls")),
    path("", views.chat, name="chat"),
    path("c/new/", views.conversation_new, name="conversation_new"),
    path("c/<uuid:conversation_id>/", views.conversation_detail, name="conversation"),
    path("c/<uuid:conversation_id>/send/", views.message_send, name="message_send"),
    path("c/<uuid:conversation_id>/messages/", views.messages_json, name="messages"),
]
