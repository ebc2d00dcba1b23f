"""The rule tables of spec §8 (they enter ``rules_hash``: ``detect/registry.OTHER_RULES``)."""

from __future__ import annotations

import re
from typing import Final

WINDOW_CALLS: Final = 25
"""The follow-up window ends at this many tool calls after the anchor (``metacog.window_calls``)."""
UNCHECKED_WRITE_LOAD: Final = 2.0
"""M4: a project write whose load reaches this is unchecked (``metacog.unchecked_write_load``)."""
MISS_WEIGHT: Final = 1.0
HEDGE_WEIGHT: Final = 0.5
LOAD_BUCKETS: Final = ("0", "0.5", "1", "1.5", "2+")
"""A writing segment's maximum load, bucketed (``max_write_load``)."""
OUTCOMES: Final = ("recovered", "created", "asked", "dropped", "proceeded")
"""The five outcomes, in the order the views list them."""
PRECEDENCE: Final = ("proceeded", "asked", "dropped", "created", "recovered")
"""A lookup-gap segment's outcome: the first of these any of its eligible misses had (§8.6)."""
HARD_WRITES: Final = frozenset({"vcs", "dependency", "data"})
"""Seed 004's hard triggers among the write kinds."""

# --- §8.1 / §8.2: what a search named -------------------------------------------------------------
MIN_GLOB_LITERAL: Final = 3
MIN_CONTENT_LITERAL: Final = 4
MIN_TOKEN: Final = 4
MIN_PROBE_NAME: Final = 3
MIN_SAME_LAST: Final = 4
STRONG_LONG: Final = 6
NAMING_TOKEN: Final = 6
NAMING_LONG: Final = 10
NAMING_LITERAL: Final = 6
CREATED_NAME_TOKEN: Final = 5
STOP_WORDS: Final = frozenset(
    {
        "def", "class", "src", "test", "tests", "config", "import", "from", "function", "const", "return",
        "self", "this", "true", "false", "none", "null", "name", "type", "file", "files", "path", "main",
        "index", "json", "yaml", "toml", "html", "todo", "with", "then", "else", "each", "when",
        "async", "await", "export", "default", "public", "private", "static", "void", "string", "value",
        "http", "https", "www", "com", "org", "lib", "bin", "usr", "home", "users", "tmp", "var",
        "md", "py", "ts", "tsx", "js", "jsx", "rs", "go", "txt", "yml", "lock", "sh", "css", "scss",
        # the reserved words of the common languages (Go, TypeScript/JavaScript, Python, Rust, Java,
        # Kotlin, C/C++), as `def` and `class`: every codebase has them, none names a thing
        "struct", "interface", "enum", "impl", "trait", "func", "package", "extends", "implements",
        "namespace", "typedef", "typeof", "instanceof", "template", "typename", "virtual", "unsigned",
        "nullptr", "boolean", "lambda", "yield", "throw", "throws", "catch", "finally", "except", "raise",
        "assert", "continue", "break", "while", "elif", "switch", "case", "abstract", "protected",
        "override", "readonly", "declare", "undefined", "sizeof", "extern", "unsafe", "ifdef", "ifndef",
        "endif", "global", "nonlocal", "super", "final", "sealed", "internal", "fallthrough", "defer",
        "chan", "goto", "crate",
    }
)  # fmt: skip
"""Generic words a content search's tokens never are."""
GREP_PROGRAMS: Final = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "Select-String", "sls"})
FILE_PROGRAMS: Final = frozenset(
    {"ls", "cat", "head", "tail", "sed", "test", "[", "[[", "stat", "Get-Content", "gc", "Test-Path", "nl", "less",
     "more", "wc", "file", "dir", "Get-ChildItem", "gci", "tree"}
)  # fmt: skip
NAME_PROGRAMS: Final = frozenset({"where", "where.exe", "locate"})
"""Name searches besides the command searches (``which``, ``type``, ``command -v``, ``Get-Command``), which
are ``shell.probes_a_command``'s."""
GREP_VALUE_FLAGS: Final = frozenset(
    {"-A", "-B", "-C", "-m", "-e", "-f", "-g", "-t", "-T", "--include", "--exclude", "--exclude-dir", "--glob",
     "--type", "--type-not", "--max-count", "--context", "--after-context", "--before-context", "-d", "-D",
     "--max-depth", "--color", "--colour", "-M", "--max-columns", "-j", "--threads", "--regexp", "--file"}
)  # fmt: skip
"""Options of the grep family that take a value (the value is not the pattern)."""
LOOKUP_TOOLS: Final = frozenset({"LS", "list_directory", "Task", "Agent", "WebFetch", "WebSearch"})
LOOKUP_PROGRAMS: Final = frozenset(
    {"ls", "tree", "cat", "sed", "head", "tail", "find", "fd", "grep", "egrep", "rg", "ag", "ack", "which", "type",
     "stat", "cd", "echo", "pwd", "wc", "nl", "less", "more", "file", "locate", "system_profiler", "printf",
     "sort", "uniq", "cut", "awk", "jq", "Get-Content", "Get-ChildItem", "gci", "gc", "Test-Path", "dir", "where"}
)  # fmt: skip
"""Shell programs that only read (§8.2.4); ``git``, ``pip``, ``brew`` by their read-only subcommands."""
LOOKUP_SUBCOMMANDS: Final = frozenset(
    {("git", "ls-files"), ("git", "log"), ("git", "show"), ("git", "diff"), ("git", "grep"), ("git", "status"),
     ("pip", "show"), ("pip3", "show"), ("brew", "list"), ("npm", "ls"), ("npm", "view")}
)  # fmt: skip

# --- §8.3: writes ---------------------------------------------------------------------------------
FILE_EDIT_TOOLS: Final = frozenset(
    {"Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch", "write_file", "replace"}
)
NOT_WRITES: Final = frozenset(
    {"TodoWrite", "TaskCreate", "TaskUpdate", "update_plan", "save_memory", "update_topic", "ExitPlanMode"}
)
SHELL_WRITE_PROGRAMS: Final = frozenset(
    {"cp", "mv", "rm", "rmdir", "ln", "install", "truncate", "dd", "patch", "chmod", "chown",
     "Set-Content", "Add-Content", "Out-File", "New-Item", "Remove-Item", "Copy-Item", "Move-Item"}
)  # fmt: skip
IN_PLACE_PROGRAMS: Final = frozenset({"sed", "perl"})
"""Writers only with ``-i`` (``sed -i``, ``perl -i``/``-pi``)."""
DESTINATION_PROGRAMS: Final = frozenset({"cp", "mv", "ln", "install", "Copy-Item", "Move-Item"})
"""Their last operand is a created path."""
WRITE_VALUE_OPTIONS: Final = {
    "truncate": frozenset({"-s", "--size", "-r", "--reference"}),
    "install": frozenset({"-m", "--mode", "-o", "--owner", "-g", "--group"}),
}
"""Options of writing programs that take a value (``truncate -s 0 FILE``: ``0`` is no path)."""
COPYING_PROGRAMS: Final = frozenset({"cp", "ln", "install", "Copy-Item"})
"""They write only their destination, the last operand (the sources are read); ``mv`` writes both."""
CREATING_PROGRAMS: Final = frozenset({"New-Item", "Set-Content", "Out-File"})


VCS_WRITES: Final = frozenset(
    {"commit", "push", "apply", "am", "reset", "rm", "mv", "restore", "merge", "rebase", "cherry-pick", "revert",
     "tag", "stash"}
)  # fmt: skip
VCS_READ_STASH: Final = frozenset({"list", "show"})
DEPENDENCY_WRITES: Final = {
    "npm": frozenset({"install", "i", "add"}),
    "pnpm": frozenset({"install", "i", "add"}),
    "bun": frozenset({"install", "i", "add"}),
    "yarn": frozenset({"add"}),
    "pip": frozenset({"install"}),
    "pip3": frozenset({"install"}),
    "uv": frozenset({"add", "pip", "tool"}),
    "cargo": frozenset({"add", "install"}),
    "go": frozenset({"get", "install"}),
    "brew": frozenset({"install"}),
    "apt": frozenset({"install"}),
    "apt-get": frozenset({"install"}),
    "gem": frozenset({"install"}),
    "poetry": frozenset({"add"}),
}
"""Package managers and the subcommands that add a dependency (a bare ``npm install`` does not)."""
PYTHON_LAUNCHERS: Final = re.compile(r"^(?:python(?:\d(?:\.\d+)?)?|py)(?:\.exe)?$")
"""``python -m pip``, ``python3 -m pip``, ``py -m pip`` run ``pip``: the same write as ``pip install``."""
PYTHON_MODULE_PROGRAMS: Final = frozenset({"pip", "pip3"})
"""Modules that are the programs of ``DEPENDENCY_WRITES`` (``python -m pip install X``)."""
PYTHON_VALUE_OPTIONS: Final = frozenset({"-W", "-X"})
"""Python's options before ``-m`` that take a value."""
BARE_RESTORES: Final = frozenset({"npm", "pnpm", "bun"})
"""Their ``install`` without a package restores the lock file: not a write."""
PIPE_SHELLS: Final = frozenset({"sh", "bash", "zsh"})
"""``curl … | sh``: an install."""
SQL_WRITE: Final = re.compile(
    r"^\s*(?:INSERT|UPDATE|DELETE|MERGE|UPSERT|CREATE|ALTER|DROP|TRUNCATE|GRANT|REVOKE)\b", re.IGNORECASE
)
SQL_READ: Final = re.compile(r"^\s*(?:SELECT|WITH|SHOW|DESCRIBE|DESC|EXPLAIN|VALUES|TABLE)\b", re.IGNORECASE)
"""A statement that reads: a SQL client running one is a lookup (§8.2.4). Not sqlite3's dot-commands
(``.import`` writes), not ``PRAGMA`` (some set)."""
SQL_INPUT_KEYS: Final = ("query", "sql", "statement")
SQL_CLIENTS: Final = frozenset({"psql", "mysql", "sqlite3", "duckdb", "clickhouse-client", "bq"})
NOT_WRITE_TARGETS: Final = frozenset({"/dev/null", "NUL", "nul", "$null", "/dev/stdout", "/dev/stderr"})
SCRATCH_PREFIXES: Final = (
    "/tmp/", "/private/tmp/", "/var/folders/", "/dev/", "~/.claude/plans/", "~/.claude/todos/",  # noqa: S108
)  # fmt: skip
SCRATCH_DIRS: Final = frozenset({"/tmp", "/private/tmp", "/dev"})  # noqa: S108
SCRATCH_WINDOWS: Final = re.compile(r"AppData[\\/]Local[\\/]Temp[\\/]", re.IGNORECASE)

# --- §8.5: questions and acknowledgements ---------------------------------------------------------
QUESTION_TOOLS: Final = frozenset({"AskUserQuestion", "ask_user", "request_user_input"})
PLAN_APPROVAL: Final = frozenset({"ExitPlanMode"})
"""Not a question: its answer is a checkpoint for M4."""
STOCK_CLOSERS: Final = re.compile(
    r"anything else|let me know if|how (?:can|may) I (?:help|assist)|would you like me to (?:do )?anything|"
    r"还有什么|還有什麼|有什么.*(?:帮|幫)|需要.*其他",
    re.IGNORECASE,
)
"""Question lines that ask nothing about the gap."""
GAP_ACK: Final = (
    "couldn't find", "could not find", "couldnt find", "can't find", "cannot find", "unable to find",
    "unable to locate", "didn't find", "did not find", "not found", "doesn't exist", "does not exist",
    "don't exist", "do not exist", "isn't there", "there is no", "there are no", "there's no", "no such",
    "is empty", "are empty", "is missing", "are missing", "not sure", "unsure", "unclear", "don't know",
    "do not know", "not certain", "no file", "no directory", "no folder", "no config", "no match",
    "not installed", "isn't installed", "wasn't found", "weren't found", "couldn't locate",
    "could not locate", "can't locate", "cannot locate", "not present", "isn't available",
    "not available", "no longer exists",
    "找不到", "没找到", "沒找到", "未找到", "未找著", "不存在", "没有", "沒有", "未安装", "未安裝",
    "不确定", "不確定", "不清楚",
    "없", "찾을 수 없", "見つかりません", "見つからない", "存在しません", "存在しない",
    "nicht gefunden", "existiert nicht", "nicht vorhanden", "nicht installiert", "weiß nicht",
    "nicht sicher", "não encontr", "não existe", "não está instalado", "não sei",
    "no existe", "no encontr", "no está instalado",
)  # fmt: skip
"""Phrases that state a gap (table ``GAP_ACK`` of §8.5.3), lower case, found in the lower-cased text
(curly apostrophes read as straight ones)."""
QUESTION_MARKS: Final = ("?", "？")
