"""FIDE (Dutch) Swiss pairing, pure Python: TRF input (trf), virtual points (acceleration),
the pairing engine (dutch) and its exact blossom matchings (matching). No Django here."""
