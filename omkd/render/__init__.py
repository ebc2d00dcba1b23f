"""The report's views: the skill table's columns declared once (``columns``), and the HTML page
(``html``, its charts ``chart``). The terminal and Markdown views are the CLI's (``cli/render.py``,
``cli/markdown.py``); all three read ``columns`` and never recompute a figure the report holds."""
