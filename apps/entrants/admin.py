from django.contrib import admin

from .models import Entrant, StageEntry


@admin.register(Entrant)
class EntrantAdmin(admin.ModelAdmin):
    list_display: tuple[str, ...] = ("code", "name", "nation", "rating", "person", "tournament")
    list_filter = ("nation", "tournament")
    list_select_related = ("tournament",)
    search_fields = ("code", "name")
    raw_id_fields = ("user",)


@admin.register(StageEntry)
class StageEntryAdmin(admin.ModelAdmin):
    list_display = ("entrant", "stage", "source", "withdrawn_at")
    list_filter = ("source",)
    list_select_related = ("entrant", "stage__tournament")
    search_fields = ("entrant__code", "entrant__name")
    raw_id_fields = ("entrant", "stage")
