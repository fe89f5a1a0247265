from django.contrib import admin

from .models import DrawJob, DrawJobGroup, Stage, Tournament
from .services import frozen_stage_fields, frozen_tournament_fields


class StageInline(admin.TabularInline):
    model = Stage
    extra = 0
    fields = (
        "order",
        "kind",
        "format",
        "min_group_size",
        "separate_nations",
        "avoid_rematches",
        "status",
    )
    # Settings change on the stage's own page, where what is frozen is read-only.
    readonly_fields = fields
    show_change_link = True


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "games_per_player", "tiebreak", "ranking", "created_at")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    filter_horizontal = ("organizers",)
    inlines = [StageInline]

    def get_readonly_fields(self, request, obj=None):
        # What the organizer's pages refuse to change, the admin does not change either.
        frozen = tuple(frozen_tournament_fields(obj)) if obj is not None else ()
        return (*super().get_readonly_fields(request, obj), *frozen)


@admin.register(Stage)
class StageAdmin(admin.ModelAdmin):
    list_display = ("__str__", "order", "kind", "format", "status", "min_group_size", "seed")
    list_filter = ("status", "kind", "format")
    list_select_related = ("tournament",)
    search_fields = ("tournament__name", "seed")
    # Status, seed and digests change only through the actions (close, draw, publish).
    readonly_fields = (
        "status",
        "seed",
        "entrants_digest",
        "draw_digest",
        "registration_closed_at",
        "drawn_at",
        "published_at",
    )

    def get_readonly_fields(self, request, obj=None):
        # What the organizer's pages refuse to change, the admin does not change either.
        frozen = tuple(frozen_stage_fields(obj)) if obj is not None else ()
        return (*super().get_readonly_fields(request, obj), *frozen)


@admin.register(DrawJob)
class DrawJobAdmin(admin.ModelAdmin):
    list_display = ("id", "stage", "seed", "status", "total_groups", "created_at", "finished_at")
    list_filter = ("status",)
    list_select_related = ("stage__tournament",)
    search_fields = ("seed", "stage__tournament__name")
    readonly_fields = [f.name for f in DrawJob._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(DrawJobGroup)
class DrawJobGroupAdmin(admin.ModelAdmin):
    list_display = ("job", "number")
    list_select_related = ("job__stage__tournament",)
    raw_id_fields = ("job",)
    readonly_fields = ("job", "number", "members", "payload")

    def has_add_permission(self, request) -> bool:
        return False
