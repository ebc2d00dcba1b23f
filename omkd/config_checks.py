"""Rules between the keys of a config document, checked on the raw TOML so every problem is named
even when other keys are bad (``config.parse_config``)."""

from __future__ import annotations


def llm_checks(hedging: object) -> list[str]:
    llm = hedging.get("llm", {}) if isinstance(hedging, dict) else {}
    if isinstance(llm, dict) and llm.get("enabled") is True and not str(llm.get("model", "")).strip():
        return ["hedging.llm.model: required when hedging.llm.enabled is true"]
    return []


def wiki_checks(wiki: object, hedging: object) -> list[str]:
    llm = hedging.get("llm", {}) if isinstance(hedging, dict) else {}
    if (
        isinstance(wiki, dict)
        and wiki.get("llm") is True
        and not str(llm.get("model", "") if isinstance(llm, dict) else "").strip()
    ):
        return ["wiki.llm: needs hedging.llm.model (the model that writes the entries' prose)"]
    return []
