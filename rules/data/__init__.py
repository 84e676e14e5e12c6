"""Game data for the rules systems: tables transcribed from the rules texts, as plain Python."""
