"""Who sees a game played here, under the stage's ``game_visibility`` (docs/play.md §7).

The two players, the group's TD and the tournament's organizers always see the whole game.
Everyone else who may see the stage sees:

* ``finished``: the game once it is finished, nothing before;
* ``delayed``: the game while it is played, less its last ``visibility_delay_moves`` moves
  (both sides' moves: 5 hides the last five full moves, ten plies); the whole game once
  finished;
* ``players``: the group's players see its games in full; everyone else nothing until the
  group is closed (finished games included).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import Actor, can_enter_results, signed_in
from apps.groups.models import Seat
from apps.stages.models import Stage

from .models import PlayedGame


@dataclass(frozen=True)
class View:
    """What a user sees of a game: up to ``ply`` (its plies after are hidden)."""

    ply: int

    def hides(self, played: PlayedGame) -> int:
        return played.ply - self.ply


def is_player(user: Actor | None, played: PlayedGame) -> bool:
    if not signed_in(user):
        return False
    game = played.game
    return user.pk in (game.white.user_id, game.black.user_id)


def in_group(user: Actor | None, played: PlayedGame) -> bool:
    """Whether ``user`` holds an entry seated in the game's group."""
    return signed_in(user) and (
        Seat.objects.filter(group_id=played.game.group_id, entrant__user_id=user.pk).exists()
    )


def view_of(user: Actor | None, played: PlayedGame) -> View:
    """What ``user`` may see of ``played`` (whose stage they may see), or PERMISSION_DENIED
    with the reason."""
    whole = View(played.ply)
    if is_player(user, played) or can_enter_results(user, played.game.group):
        return whole
    stage = played.stage
    visibility = stage.game_visibility
    finished = played.finished_at is not None or bool(played.game.result)
    if finished and visibility != Stage.GameVisibility.PLAYERS:
        return whole
    if visibility == Stage.GameVisibility.DELAYED:
        plies = 2 * stage.visibility_delay_moves
        return View(max(0, played.ply - plies))
    if visibility == Stage.GameVisibility.PLAYERS:
        if played.game.group.is_closed or in_group(user, played):
            return whole
        raise ActionError(
            ErrorCode.PERMISSION_DENIED,
            _("The games of this group are shown to its players only until the group ends."),
        )
    raise ActionError(
        ErrorCode.PERMISSION_DENIED, _("The game's moves are public once it is finished.")
    )
