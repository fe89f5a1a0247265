from django.contrib import admin

from .models import Adjustment


@admin.register(Adjustment)
class AdjustmentAdmin(admin.ModelAdmin):
    list_display = ("entrant", "kind", "stage", "reason", "created_by", "created_at")
    list_filter = ("kind",)
    search_fields = ("entrant__code", "entrant__name", "reason")
    raw_id_fields = ("stage", "entrant", "created_by")
