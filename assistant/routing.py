"""Websocket URLs; ``assistant.asgi`` wraps them in the session/auth middleware and the origin check."""

from __future__ import annotations

from django.urls import URLPattern, path

from assistant.consumers import ChatConsumer

__all__ = ["websocket_urlpatterns"]

websocket_urlpatterns: list[URLPattern] = [
    path("ws/c/<uuid:conversation_id>/", ChatConsumer.as_asgi(), name="ws_conversation"),
]
