"""The demo that ``make run`` creates on an empty database (``manage.py demo``).

It stands on the top floor, below ``config`` only, because it runs the actions of every app:
the office draws and publishes (``apps/office/demo.py`` makes the office's tournaments), the
accounts app links entries to players' accounts, the players app takes registrations, play
makes moves on the server and the results app takes a Swiss stage's results (the office pairs
its rounds). No app below imports it.
"""
