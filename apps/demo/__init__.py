"""The demo that ``make run`` creates on an empty database (``manage.py demo``).

It stands on the top floor, below ``config`` only, because it runs the actions of every app:
the office draws and publishes (``apps/office/demo.py`` makes the office's tournaments), the
accounts app links entries to players' accounts, the players app takes registrations and
play makes moves on the server. No app below imports it.
"""
