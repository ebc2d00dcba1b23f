"""The files a shell command reads: its readers' operands, for coverage (spec §5) and the user-given rule,
and the SKILL.md a reader opens (the fallback signal of a skill's segment)."""

from __future__ import annotations

from omkd.engine import shell_rules
from omkd.engine.shell import parse
from omkd.engine.shell_forms import operands


def reads(command: str, accessed: bool = False) -> list[str]:
    """Paths a shell command reads with cat/head/tail/sed/less; ``accessed``: as coverage counts them."""
    paths: list[str] = []
    for element in parse(command).elements:
        stage = element[0]
        if not shell_rules.reads_a_file(stage.program, stage.args, accessed):
            continue
        files = [a for a in operands(stage.args) if not a.isdigit()]
        if stage.program == "sed" and files and "-e" not in stage.args:
            files = files[1:]  # the first operand is the script
        if stage.program in ("head", "tail") and "-n" in stage.args:
            at = stage.args.index("-n") + 1
            count = stage.args[at] if at < len(stage.args) else ""
            files = [a for a in files if a != count]
        paths.extend(files)
    return paths


def skill_file_operands(command: str) -> list[str]:
    """Operands of the last command when it is a reader that opens a SKILL.md."""
    elements = parse(command).elements
    if not elements:
        return []
    stage = elements[-1][0]
    return operands(stage.args) if stage.program in shell_rules.SKILL_FILE_READERS else []
