"""WSGI entry point, served by gunicorn in production (and by ``runserver``).

Without a broker (the embedded default) the web process also starts the in-process worker,
which runs the tasks in the background (``config/inprocess.py``).
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()

from config.inprocess import start_if_embedded  # noqa: E402  (needs the settings loaded)

start_if_embedded()
