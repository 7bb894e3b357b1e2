"""Tables (CSV + Markdown), claims comparison and report assembly."""
