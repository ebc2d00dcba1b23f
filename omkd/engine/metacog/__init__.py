"""Metacognition (spec §8): what the agent did at a gap — found it, made it, asked, wrote anyway.

``rules.py`` holds the tables (they enter ``rules_hash``); ``targets.py`` what a search looked for
(§8.2); ``writes.py`` the write operations (§8.3); ``episodes.py`` the anchors, their follow-up
windows and outcomes (§8.1, §8.4, §8.5); ``loads.py`` M4's load (§8.6); ``measures.py`` one
segment's yes/no figures and outcome partition, counted as tallies when the segment ends.
"""
