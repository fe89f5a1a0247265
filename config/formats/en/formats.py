"""English: Django's formats with 24-hour times ("Nov. 27, 2026, 14:30"), so that no date or
time ends in "a.m." or "p.m." (a sentence ending with one read "a.m..")."""

TIME_FORMAT = "H:i"
DATETIME_FORMAT = "N j, Y, H:i"
SHORT_DATETIME_FORMAT = "m/d/Y H:i"
