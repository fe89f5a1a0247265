from django.contrib import admin

from .models import Game


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("number", "group", "white", "black", "result", "adjudicated", "version")
    list_filter = ("result", "adjudicated")
    list_select_related = ("group__stage__tournament", "white", "black")
    search_fields = ("white__code", "white__name", "black__code", "black__name")
    # Results go through the TD's result entry, which keeps the audit trail.
    readonly_fields = (
        "group",
        "number",
        "round",
        "white",
        "black",
        "result",
        "adjudicated",
        "version",
        "updated_at",
    )

    def has_add_permission(self, request) -> bool:
        return False
