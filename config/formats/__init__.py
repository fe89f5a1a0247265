"""The site's date and time formats per language (``FORMAT_MODULE_PATH``)."""
