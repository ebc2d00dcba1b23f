"""Knowledge changes and their effect (spec §9): did the edit help, with the uncertainty said.

``changes.py`` says what a change is (edits merged within an hour) and which skills it affects;
``compare.py`` cuts the before and after spans and judges each figure from the exact rise
interval, the model mix and the failed-search patterns; ``schema.py`` is the JSON contract of
``omkd impact --json`` and ``/api/v1/impact``; ``build.py`` puts them together. Pure: no I/O, no
clock; the git history and the files' places come from the shell (``shell/impact.py``).
"""
