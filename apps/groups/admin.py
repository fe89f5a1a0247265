from django.contrib import admin

from .models import Game, Group, Seat


@admin.register(Group)
class GroupAdmin(admin.ModelAdmin):
    list_display = ("__str__", "number", "size", "formula_text", "rule", "principles_hold", "td")
    list_filter = ("principles_hold", "stage__tournament")
    list_select_related = ("stage__tournament", "td")
    search_fields = ("stage__tournament__name",)
    raw_id_fields = ("td",)
    # The draw writes groups, seats and games; only a group's TD is assigned by hand.
    readonly_fields = (
        "stage",
        "number",
        "size",
        "formula",
        "rule",
        "principles_hold",
        "conflicts",
        "nation_mix",
    )

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("number", "entrant", "group")
    list_select_related = ("entrant", "group__stage__tournament")
    search_fields = ("entrant__code", "entrant__name")
    readonly_fields = ("stage", "group", "number", "entrant")

    def has_add_permission(self, request) -> bool:
        return False


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
