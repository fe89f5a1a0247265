from django.contrib import admin

from .models import Preferences, SentNotification


@admin.register(Preferences)
class PreferencesAdmin(admin.ModelAdmin):
    list_display = ("user", "start_list", "result", "td_digest")
    list_select_related = ("user",)
    search_fields = ("user__username", "user__email")
    raw_id_fields = ("user",)


@admin.register(SentNotification)
class SentNotificationAdmin(admin.ModelAdmin):
    """The record of e-mails sent (read-only: written by the sending tasks)."""

    list_display = ("sent_at", "kind", "key", "recipient")
    list_filter = ("kind",)
    search_fields = ("recipient", "key")
    date_hierarchy = "sent_at"
    readonly_fields = [f.name for f in SentNotification._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
