"""WSGI entry point, for the admin behind a plain WSGI server; the chat needs ASGI."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assistant.settings")
application = get_wsgi_application()
