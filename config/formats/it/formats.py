"""Italian: dates without the weekday, as they follow "il" in a sentence ("il 27 dicembre
2026, 14:30"; Django's own "l d F Y" gave "il Domenica 27 Dicembre 2026"). The month and
weekday names come from locale/it, in lower case as Italian writes them."""

DATE_FORMAT = "j F Y"
DATETIME_FORMAT = "j F Y, H:i"
MONTH_DAY_FORMAT = "j F"
