"""The daemon's state: ``store.py`` (the SQLite file and its lock, checkpoints written in one
transaction, what a restart restores), ``queries.py`` (saved summaries read back), ``upgrades.py``
(a state written by an earlier omkd, brought up to date); here, the errors that keep omkd from
starting on a state."""


class StateLockedError(Exception):
    """Another omkd holds the lock on this state directory (or it cannot be made ready)."""


class StateUpgradeError(StateLockedError):
    """The one-time upgrade of a state written by an earlier omkd failed (a full disk, say): the
    state is left as it was, not moved aside, and omkd does not start until it can finish."""
