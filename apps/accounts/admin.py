"""Admin: invitations (read-only: they are sent from the tournament's page or the API), the
display name on each user's page, and two actions on entrants — link each to the account
with its e-mail address, or e-mail a link to claim it. The actions are added to the entrants
app's own admin, re-registered here so that the entrants app does not depend on accounts."""

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.core.errors import ActionError
from apps.core.models import Profile
from apps.entrants.admin import EntrantAdmin
from apps.entrants.models import Entrant

from . import services
from .models import Invitation


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ("email", "role", "tournament", "group_number", "created_at", "accepted_by")
    list_filter = ("role",)
    list_select_related = ("tournament", "accepted_by")
    search_fields = ("email", "tournament__name")
    readonly_fields = [f.name for f in Invitation._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.action(description=gettext_lazy("Link to the account with the same e-mail address"))
def link_by_email(modeladmin, request, queryset) -> None:
    try:
        count = services.link_entrants_by_email(request.user, queryset.select_related("tournament"))
    except ActionError as error:
        modeladmin.message_user(request, error.message, messages.ERROR)
        return
    modeladmin.message_user(
        request, _("%(count)s entries linked to accounts.") % {"count": count}, messages.SUCCESS
    )


@admin.action(description=gettext_lazy("E-mail a link to claim the entry"))
def send_claim_links(modeladmin, request, queryset) -> None:
    try:
        count = services.send_claim_links(request.user, queryset.select_related("tournament"))
    except ActionError as error:
        modeladmin.message_user(request, error.message, messages.ERROR)
        return
    modeladmin.message_user(
        request,
        _("Claim links are on their way for %(count)s entries.") % {"count": count},
        messages.SUCCESS,
    )


class EntrantAccountAdmin(EntrantAdmin):
    list_display = (*EntrantAdmin.list_display, "user")
    actions = [link_by_email, send_claim_links]


admin.site.unregister(Entrant)
admin.site.register(Entrant, EntrantAccountAdmin)


class ProfileInline(admin.StackedInline):
    """The name others see (``apps.core.people``), on the user's admin page."""

    model = Profile
    can_delete = False
    extra = 0
    max_num = 1
    fields = ("display_name",)


admin.site.unregister(get_user_model())


@admin.register(get_user_model())
class AccountAdmin(UserAdmin):
    """Django's user admin with the display name."""

    inlines = [ProfileInline]
    search_fields = (*UserAdmin.search_fields, "profile__display_name")
