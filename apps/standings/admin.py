from django.contrib import admin

from .models import GroupStanding


@admin.register(GroupStanding)
class GroupStandingAdmin(admin.ModelAdmin):
    """Standings are computed from the results; here they are only read."""

    list_display = ("group", "place", "entrant", "points", "finished", "scheduled", "withdrawn")
    list_select_related = ("group__stage__tournament", "entrant")
    search_fields = ("entrant__code", "entrant__name")
    readonly_fields = [f.name for f in GroupStanding._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
