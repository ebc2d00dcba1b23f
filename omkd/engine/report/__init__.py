"""The report: its JSON contract (``schema``), its build from a fold (``build``), the gap inventory (``gaps``)."""
