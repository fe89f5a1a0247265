"""FIDE TRF (TRF16) files: :mod:`.read` turns one into tie-break input and the
``standings_from_trf`` report, :mod:`.write` writes a group's players and games as one."""
