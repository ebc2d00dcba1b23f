"""The marker convention (spec §3.2): the block that asks an agent to mark its guesses and
unknowns, and how to tell whether a knowledge base has it.

Agents write ``[inferred]``, ``[unknown]``, ``[knowledge gap]`` (or 【推断】, 【未知】, 【知识缺口】)
only when told to. ``omkd conventions`` prints the block for ``CLAUDE.md`` or ``AGENTS.md``;
a knowledge base *asks for markers* when one of its instruction files holds the block (its
opening line) or names at least two of the markers itself. Where no base asks, a marker rate
of 0 means "not asked", not "no guesses".
"""

from __future__ import annotations

from typing import Final

OPENING: Final = "<!-- omkd:markers v1 -->"
CLOSING: Final = "<!-- /omkd:markers -->"

BLOCK_EN: Final = f"""{OPENING}
## Mark what you do not know

When a statement in your reply rests on a guess rather than on something you
read or ran, put `[inferred]` right after it. When you need a fact that you
could not find in this repository or its documentation, write `[unknown]` or
`[knowledge gap]` and say what was missing. Do not mark plans, suggestions or
things you checked. These markers tell the people who maintain this knowledge
where it runs out.
{CLOSING}
"""

BLOCK_ZH: Final = f"""{OPENING}
## 标出你不知道的内容

回复中的某个判断如果是推测，而不是来自你读过的文件或运行过的结果，请在其后写【推断】。需要某个事实却在本仓库或文档中找不到时，
请写【未知】或【知识缺口】，并说明缺的是什么。计划、建议和已经核实过的内容不要标注。这些标记能让维护这些知识的人看到知识在哪里不够用。
{CLOSING}
"""

BLOCKS: Final = {"en": BLOCK_EN, "zh": BLOCK_ZH}

INSTRUCTION_FILES: Final = ("CLAUDE.md", "AGENTS.md", ".claude/CLAUDE.md", "GEMINI.md")
"""Files of a project (or of ``~/.claude``) an agent reads as its instructions."""

_MARKERS: Final = ("[inferred]", "[unknown]", "[knowledge gap]", "【推断】", "【未知】", "【知识缺口】")

ASKED: Final = "asked"
NOT_ASKED: Final = "not asked"
PARTLY: Final = "partly asked"
UNKNOWN: Final = "unknown"


def asks_for_markers(text: str) -> bool:
    """The instructions hold the block, or name two of the markers themselves."""
    if OPENING in text:
        return True
    lowered = text.lower()
    return sum(1 for marker in _MARKERS if marker in lowered) >= 2


def combined(asked: list[bool | None]) -> str:
    """One word for several projects: asked, not asked, partly asked, or unknown (no index)."""
    known = [a for a in asked if a is not None]
    if not known:
        return UNKNOWN
    if all(known):
        return ASKED
    return PARTLY if any(known) else NOT_ASKED
