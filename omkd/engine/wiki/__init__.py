"""The gap wiki (``omkd wiki``): recurring gaps merged into Markdown pages a person can edit.

``slugs`` names pages safely, ``entries`` merges occurrences into kept entries, ``pages`` renders
them and splices the generated part into what a person wrote, ``lint`` checks a wiki. Nothing
here does I/O; ``omkd/shell/wiki.py`` reads, locks and writes.
"""
