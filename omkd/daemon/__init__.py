"""The long-running service: tail transcripts, keep exact state, export metrics, answer status."""
