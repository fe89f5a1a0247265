from django.contrib import admin

from .models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """The audit trail is read-only: events are written by the actions only."""

    list_display = (
        "created_at",
        "action",
        "actor",
        "tournament_id",
        "stage_id",
        "group_id",
        "game_id",
    )
    list_filter = ("action",)
    list_select_related = ("actor",)
    search_fields = ("action", "actor__username")
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in AuditEvent._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
