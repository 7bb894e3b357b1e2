"""graphaudit."""
