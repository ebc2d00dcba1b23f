"""omkd: finds where the knowledge given to AI coding agents runs out, from their transcripts."""

__version__ = "0.1.0"
