"""Result entry works on the games of ``apps.groups.models.Game``; this app has no tables."""
