from django.contrib import admin

from .models import Entrant, ImportJob, Person, StageEntry


@admin.register(Entrant)
class EntrantAdmin(admin.ModelAdmin):
    list_display: tuple[str, ...] = ("code", "name", "nation", "rating", "person", "tournament")
    list_filter = ("nation", "tournament")
    list_select_related = ("tournament",)
    search_fields = ("code", "name")
    raw_id_fields = ("user", "profile")


@admin.register(Person)
class PersonAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "federation", "title", "rating_id", "user")
    list_filter = ("federation",)
    search_fields = ("name", "rating_id")
    raw_id_fields = ("user", "merged_into")


@admin.register(StageEntry)
class StageEntryAdmin(admin.ModelAdmin):
    list_display = ("entrant", "stage", "source", "withdrawn_at")
    list_filter = ("source",)
    list_select_related = ("entrant", "stage__tournament")
    search_fields = ("entrant__code", "entrant__name")
    raw_id_fields = ("entrant", "stage")


@admin.register(ImportJob)
class ImportJobAdmin(admin.ModelAdmin):
    """Import jobs, to look at (the file itself is left out: it can be megabytes)."""

    list_display = ("id", "stage", "mode", "dry_run", "status", "done_rows", "total_rows")
    list_filter = ("status", "mode", "dry_run")
    list_select_related = ("stage__tournament",)
    raw_id_fields = ("stage", "started_by", "preview")
    exclude = ("csv",)
