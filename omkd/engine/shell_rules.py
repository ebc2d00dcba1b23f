"""The shell rule tables: when a shell command is a search or probe, and how it says "not there".

Spec §3.1's shell rules, each row with its exceptions as fields: the short list of search programs
(``SHELL_RULE``), the wrappers and carriers a command is run through, stages that act or only filter
(HTTP clients' tables are ``http_lookups``', the probes' ``probe_rules``'). ``shell.py`` and
``shell_forms.py`` apply them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class ShellRule:
    """When a shell command is a search or probe, and how it reports finding nothing.

    A command is a search when ANY of its simple commands (each stage of a pipeline, each
    part of a ``&&`` / ``||`` / ``;`` list) is one. ``programs``: a run of one of these is a
    search; ``subcommands``: a program that searches only with this first argument (``git
    grep``, ``command -v``); ``path_programs``: a search only with a path operand (``ls`` alone
    lists the cwd; ``sed -n '1,200p' FILE``, ``head``, ``tail`` read it, as Codex reads files),
    and never with one of ``editing_flags`` (``sed -i`` edits). ``test_programs`` with one of
    ``test_flags`` probe for existence: their exit status is the answer, so only a hidden fallback
    or an error makes them a miss. ``line_selectors`` exit with one of ``no_lines_codes`` when no
    line matched (their errors exit 2): a command whose exit status is theirs and is that code found
    nothing, whatever else was printed.
    ``empty_outputs``: outputs meaning the search printed nothing. ``no_match``: the
    ``returnCodeInterpretation`` Claude Code gives grep's exit code 1. ``not_found_lines``:
    an output made only of such lines is the search programs' own "not there" (Claude Code
    does not mark these runs as errors). ``not_run_codes``: exit codes of a shell that could not
    run the program at all (a tool fault). ``fallbacks``: the programs whose literal text a
    command prints itself: ``… || echo TEXT`` after a search hides its miss when TEXT is printed,
    and an output made only of the command's own headers means its searches printed nothing.
    ``syntax_errors``: the shell's own complaints (the agent's typo, not a missing thing).
    ``killed_above``: an exit code above it is 128 + a signal: the command was killed (a timeout,
    ``pkill -f`` matching its own shell) before it answered — a fault, whatever it printed.
    """

    programs: frozenset[str]
    subcommands: frozenset[tuple[str, str]]
    path_programs: frozenset[str]
    editing_flags: frozenset[str]
    test_programs: frozenset[str]
    test_flags: frozenset[str]
    empty_outputs: frozenset[str]
    no_match: str
    not_found_lines: re.Pattern[str]
    exit_code_line: re.Pattern[str]
    not_run_codes: frozenset[int]
    line_selectors: frozenset[str]
    no_lines_codes: frozenset[int]
    fallbacks: frozenset[str]
    syntax_errors: tuple[str, ...]
    killed_above: int


POWERSHELL_ERROR_RECORD: Final = re.compile(
    r"^At (?:line:|\S.*:)\d+ char:\d+\r?\n(?:[+\s].*(?:\r?\n|$))*", re.MULTILINE
)
"""What PowerShell prints under an error (``At line:1 char:1``, ``+ ~~~``, ``+ CategoryInfo …`` and their
wrapped continuations): part of the message it follows, never output of its own."""
SHELL_TOOLS: Final = frozenset({"Bash", "PowerShell"})
GREP_FAMILY: Final[frozenset[str]] = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack"})
"""The content searches of a shell (a pattern, then files): ``search_pattern``, ``removals``, ``shell_forms``."""
RG_GLOBS: Final = frozenset({"-g", "--glob", "--iglob"})
"""ripgrep's globs of file names (with ``--files``, what it lists)."""
CONTENT_SEARCHES: Final = GREP_FAMILY | {"Select-String", "sls", "findstr"}
"""With PowerShell's and cmd's (``shell_forms``, the user-given rule of ``given``)."""
SHELL_RULE: Final = ShellRule(
    programs=frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "locate", "which", "type"})
    | frozenset({"mdfind"})  # macOS's index search, as locate is
    | frozenset({"Select-String", "sls", "findstr"})  # PowerShell's and cmd's content searches
    | frozenset({"Get-Command", "gcm"}),  # PowerShell's which
    subcommands=frozenset({("git", "grep"), ("command", "-v")}),
    path_programs=frozenset(
        {"ls", "cat", "head", "tail", "sed", "dir", "Get-ChildItem", "Get-Content", "stat", "tree"}
        | {"nl", "less", "more", "wc", "file", "gci", "gc", "where", "where.exe"}
        | {"realpath", "bat", "batcat", "Get-Item", "gi", "Resolve-Path", "rvpa"}  # cat's twin; PowerShell's stat
    ),
    editing_flags=frozenset({"-i", "--in-place"}),
    test_programs=frozenset({"test", "[", "[["}),
    test_flags=frozenset({"-e", "-f", "-d"}),
    empty_outputs=frozenset({"", "(Bash completed with no output)", "(PowerShell completed with no output)"}),
    no_match="No matches found",
    not_found_lines=re.compile(
        r"^(?:.*: No such file or directory(?: \(os error 2\))?"
        r"|.*: cannot access .*: No such file or directory"
        r"|(?:\S*/)?which: no \S+ in \(.*\)"  # GNU which, as /usr/bin/which on Fedora and RHEL
        r"|(?:.*: )?\S+: not found"
        r"|\S+ not found"  # zsh's which, type and whence
        r"|.*Cannot find path .* because it does not exist\.?"
        # PowerShell's which (5.1 and 7 wordings), and the line it always adds
        r"|(?:Get-Command|gcm) ?: The term '.*' is not recognized as (?:the|a) name of a cmdlet, .*"
        r"|Check the spelling of the name, or if a path was included, verify that the path is correct and try again\."
        r"|.*: cannot open .*\(No such file or directory\)"  # file
        r"|\[fd error\]: Search path '.*' is not a directory\."
        r"|INFO: Could not find files for the given pattern\(s\)\."  # where, where.exe
        # cmd's dir, under its headers (the volume, the directory it looked in)
        r"|(?:\S+ : )?File Not Found"  # ``cmd : File Not Found``: PowerShell 5.1 wraps a native stderr line
        r"|(?:.*: )?The system cannot find the (?:file|path) specified\.(?: \(os error [23]\))?"
        r"|Cannot access file [A-Za-z]:\\\S.*"  # more.com, which names the file by its full Windows path
        r"|Volume in drive \S+ (?:is \S.*|has no label\.)|Volume Serial Number is \S+|Directory of \S.*"
        # ripgrep when its -g/-t filter left no file to search: nothing of that kind is there
        r"|No files were searched, which means ripgrep probably applied a filter you didn't expect\."
        r"|Running with --debug will show why files are being skipped\.)$"
    ),
    exit_code_line=re.compile(r"^Exit code (\d+)$"),
    not_run_codes=frozenset({126, 127}),
    killed_above=128,
    line_selectors=frozenset({"grep", "egrep", "fgrep", "rg", "findstr"}),
    no_lines_codes=frozenset({1}),
    fallbacks=frozenset({"echo", "printf", "Write-Output", "Write-Host", "write-output", "write-host"}),
    syntax_errors=(
        "unexpected EOF while looking for matching",
        "syntax error near unexpected token",
        "syntax error: unexpected end of file",
        "parse error near `",  # zsh's (``zsh:1: parse error near `)'``; ``(eval):1:`` in Claude Code)
        ': unmatched "',
        ": unmatched '",
        "quotes are not balanced",  # fish's
        "is missing the terminator",  # PowerShell's parser (``The string is missing the terminator: ".``)
    ),
)
HIDDEN_STDERR: Final = re.compile(
    r"(?:\b2|&)>\s*/dev/null|>\s*/dev/null\s+2>&1|\b2>\s*(?:\$null|nul\b)"
    r"|-(?:ErrorAction|ea)(?:\s+|:)['\"]?(?:SilentlyContinue|Ignore|0)\b"
    r"|\$ErrorActionPreference\s*=\s*['\"]?(?:SilentlyContinue|Ignore)\b",
    re.I,
)
"""What sends a program's errors away (``2>/dev/null``, PowerShell's ``-ErrorAction SilentlyContinue``/``-ea
0``): a probe failing then says nothing."""
STATUS_READERS: Final = frozenset({"ls", "cat", "head", "tail", "stat", "file", "wc", "nl", "less", "more"})
"""Readers of a path whose exit status says whether it was there (PowerShell's cmdlets succeed regardless)."""
NOTES: Final = re.compile(r"command terminated with exit code \d+|tail: no files remaining")
"""Lines a program adds after the message that says what failed (kubectl after its carried command, GNU
tail after its not-found line): no output of their own."""
NOTE_STARTS: Final = ("command terminated", "tail: no files")
NOT_FOUND_LINE_CHARS: Final = 4_200
"""A not-found line names one path (``PATH_MAX`` 4,096) and its message: a longer line is never one."""
MISSING_PATH_LINE: Final = re.compile(r"^(.*?):? \(?No such file or directory(?: \(os error 2\))?\)?$")
"""A line saying a path is not there: what comes before the message names it, after the program's prefix
(``cat: P``, ``ls: cannot access 'P'``, ``find: 'P'``, ``P`` alone, ``file``'s ``P: cannot open `P'``)."""
MISSING_PATH_WORDS: Final = re.compile(
    r"^(?:cannot (?:access|open|stat|statx|read)|can't (?:read|open)|IO error for operation on) | for reading$"
)
"""The words around the path in a not-found line (``head: cannot open 'P' for reading``)."""
POWERSHELL_MISSING_PATH: Final = re.compile(r"Cannot find path '([^']+)'\s+because\s+it\s+does\s+not\s+exist")
"""PowerShell's not-found message (wrapped at the console's width, the path whole in quotes)."""
WHICH_MISSING: Final = re.compile(r"^(?:\S*/)?which: no (\S+) in \(|^(?:Get-Command|gcm) ?: The term '([^']+)' is not")
"""The program a ``which`` (GNU's, Fedora's by its path) or PowerShell's ``Get-Command`` did not find."""
SHELL_WRAPPERS: Final = frozenset(
    {"sudo", "doas", "command", "time", "nice", "env", "xargs", "(", "&"}  # ``&``: PowerShell's call operator
    | {"do", "then", "else", "if", "elif", "while", "until", "!", "{"}  # a command inside a loop or branch
)
"""Words before the program that run it: skipped to find the program (``command -v`` aside)."""
QUIET_PROGRAMS: Final = frozenset(
    {"echo", "printf", "true", ":", "export", "set", "sleep", "Write-Host", "Write-Output"}
    | {"done", "fi", "esac", "}"}
)
"""Stages that print and cannot fail a list (a fallback after them still covers a lookup before; ``cd`` can fail)."""
READER_VALUE_FLAGS: Final[dict[str, frozenset[str]]] = {
    "head": frozenset({"-n", "-c", "--lines", "--bytes"}),
    "tail": frozenset({"-n", "-c", "--lines", "--bytes", "-s", "--sleep-interval", "--pid", "--max-unchanged-stats"}),
    "stat": frozenset({"-c", "--format", "--printf"}),
}
"""Options of the readers that take a value (a count, a format: ``tail -n +5 FILE``, ``stat -c %s FILE``):
never the path (``search_pattern``'s pattern, ``metacog.targets``' file targets)."""
WRAPPER_VALUE_FLAGS: Final[dict[str, frozenset[str]]] = {
    "sudo": frozenset({"-u", "--user", "-g", "--group", "-C", "-D", "--chdir", "-h", "-p", "-r", "-t", "-U", "-T"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "--unset", "-C", "--chdir"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "xargs": frozenset({"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--max-args", "--max-procs", "--delimiter"}),
}
"""Wrappers that take options of their own (``sudo -u postgres ls …``, ``nice -n 10 find …``, ``xargs -0
rm``): skipped with them (and the value of these) to find the program they run."""
FILE_READERS: Final = frozenset(
    {"cat", "head", "tail", "sed", "nl", "less", "more", "wc", "file", "stat", "Get-Content", "gc"}
)
"""Path programs that read one file, judged as ``Read`` is for the user-given rule: the path the person
typed excuses their miss, a bare file name of it does not (the agent guessed the directory). The
listings (``ls``, ``dir``, ``Get-ChildItem``) search for a name."""
SHELL_READERS: Final = frozenset({"cat", "head", "tail", "sed", "less"})
"""Programs that read a file, for coverage: a successful run accesses its operands."""
SED_QUIET: Final = re.compile(r"^(?:--quiet|--silent|-[Ersuz]*n[Ersuz]*[ef]?)$")
"""``sed -n`` (``-ne``, ``-En``, ``--quiet``): it prints only the lines asked for, as a reader does."""


def reads_a_file(program: str, args: list[str], accessed: bool) -> bool:
    """One of ``SHELL_READERS``; with ``accessed``, one that spec §5 counts as accessing its files:
    ``sed`` only as ``sed -n`` and never with an editing flag (``sed -i`` edits the file)."""
    if program != "sed" or not accessed:
        return program in SHELL_READERS
    editing = tuple(SHELL_RULE.editing_flags)
    return any(SED_QUIET.match(a) for a in args) and not any(a.startswith(editing) for a in args)


@dataclass(frozen=True, slots=True)
class CarrierRule:
    """A program that runs a command it carries (``ssh HOST "CMD"``): the command is judged as if run.

    ``before``: words that come first (``adb shell``, ``docker exec``); ``value_flags``: its options
    that take a value (skipped with it); ``operands_before``: positional operands before the command
    (ssh's host, docker's container, timeout's duration); ``command_flags``: the option the command
    follows as one word (``bash -c``, ``powershell -Command``, ``cmd /c``; a shell's combined flags
    holding ``c`` such as ``-lc`` count); ``after_dashes``: the command follows ``--`` (``kubectl exec``).
    """

    before: tuple[str, ...] = ()
    value_flags: frozenset[str] = frozenset()
    operands_before: int = 0
    command_flags: frozenset[str] = frozenset()
    shell_flags: bool = False
    after_dashes: bool = False


_SHELL_CARRIER: Final = CarrierRule(shell_flags=True)
CARRIERS: Final[dict[str, CarrierRule]] = {
    "ssh": CarrierRule(
        value_flags=frozenset(
            {"-p", "-i", "-o", "-l", "-F", "-J", "-b", "-c", "-D", "-E", "-L", "-m", "-R", "-S", "-W"}
        ),
        operands_before=1,
    ),
    "adb": CarrierRule(before=("shell",), value_flags=frozenset({"-s", "-t", "-H", "-P"})),
    "docker": CarrierRule(
        before=("exec",), value_flags=frozenset({"-u", "--user", "-w", "--workdir", "-e", "--env"}), operands_before=1
    ),
    "podman": CarrierRule(
        before=("exec",), value_flags=frozenset({"-u", "--user", "-w", "--workdir", "-e", "--env"}), operands_before=1
    ),
    "kubectl": CarrierRule(before=("exec",), after_dashes=True),
    "bash": _SHELL_CARRIER,
    "sh": _SHELL_CARRIER,
    "zsh": _SHELL_CARRIER,
    "dash": _SHELL_CARRIER,
    "powershell": CarrierRule(command_flags=frozenset({"-Command", "-command", "-c", "-C"})),
    "powershell.exe": CarrierRule(command_flags=frozenset({"-Command", "-command", "-c", "-C"})),
    "pwsh": CarrierRule(command_flags=frozenset({"-Command", "-command", "-c", "-C"})),
    # Git Bash turns ``/c`` into a path unless written ``//c``
    "cmd": CarrierRule(command_flags=frozenset({"/c", "/C", "/k", "/K", "//c", "//C", "//k", "//K"})),
    "cmd.exe": CarrierRule(command_flags=frozenset({"/c", "/C", "/k", "/K", "//c", "//C", "//k", "//K"})),
    "wsl": CarrierRule(value_flags=frozenset({"-d", "--distribution", "-u", "--user", "--cd"})),
    "wsl.exe": CarrierRule(value_flags=frozenset({"-d", "--distribution", "-u", "--user", "--cd"})),
    "timeout": CarrierRule(value_flags=frozenset({"-s", "--signal", "-k", "--kill-after"}), operands_before=1),
}
"""Wrapped commands (spec §3.1 "Shell, beyond the short list"): judged by the command they carry."""


PROFILE_NOISE: Final = re.compile(
    r"^((?:/|~/)\S*(?:\.sh|/\.(?:bashrc|bash_profile|profile|zshrc|zprofile|zshenv))): line \d+: "
)
"""What a login shell's profile printed on stderr (``/opt/homebrew/Library/Homebrew/brew.sh: line 60: cannot
create temp file…`` under Codex's sandbox): bash's ``FILE: line N:`` of a sourced script the command does
not name, not the command's own output."""


def profile_noise(line: str, command: str) -> bool:
    """A line a login shell's profile printed (``PROFILE_NOISE``), of a script the command does not name."""
    noise = PROFILE_NOISE.match(line)
    return noise is not None and noise.group(1) not in command


CHECKERS: Final = frozenset(
    {"tsc", "vue-tsc", "mypy", "pyright", "eslint", "ruff", "flake8", "pylint", "biome", "pytest", "jest", "vitest"}
    | {"phpunit", "rspec", "tox", "nox", "make", "gradle", "gradlew", "mvn", "xcodebuild", "dialyzer", "shellcheck"}
)
"""Programs that build, test, type-check or lint: their output is diagnostics (spec §8.8's false positive
``mix dialyzer | grep ^lib/``). A grep of it that prints nothing says no diagnostic matched — the run was
clean — not that something looked for is missing."""
CHECKING_SUBCOMMANDS: Final = frozenset(
    {("cargo", s) for s in ("build", "check", "test", "clippy")}
    | {("go", s) for s in ("build", "vet", "test")}
    | {("mix", s) for s in ("compile", "dialyzer", "test", "credo")}
    | {("dotnet", s) for s in ("build", "test")}
    | {("swift", s) for s in ("build", "test")}
)
"""(program, first argument) pairs that build, test or check (``cargo build``, ``go vet``)."""
RUNNERS: Final = frozenset({"npx", "pnpx", "bunx", "npm", "pnpm", "yarn", "bun", "uv", "poetry", "exec", "run"})
"""Words that run what follows them: ``npx tsc``, ``pnpm exec tsc``, ``npm run lint``, ``uv run mypy``."""
CHECKING_SCRIPTS: Final = frozenset({"test", "build", "lint", "typecheck", "type-check", "check", "compile"})
"""A package script run by a runner that builds, tests or checks (``npm test``, ``yarn lint``, ``npm run build``)."""
LISTINGS: Final = frozenset({"ls", "find", "tree", "dir", "Get-ChildItem", "gci", "fd"})
"""Programs that list names: a filter after one looks for a name (``ls | grep X``, ``Get-ChildItem -Recurse |
Where-Object { $_.Name -like '*X*' }``)."""
MAKERS: Final = frozenset({"mkdir", "touch", "New-Item"})
"""Programs that make the paths they name (``shell.ParsedCommand.made``)."""
INVERTED: Final = frozenset({"-v", "--invert-match", "-NotMatch", "/V", "/v", "-L", "--files-without-match"})
"""A search stage with these only filters out ("nothing left that is not 200" is not a miss; findstr's ``/V``;
``grep -L``: the files without a match, none when every file has one)."""
ACTING_PROGRAMS: Final[frozenset[str]] = frozenset(
    {"kill", "pkill", "rm", "rmdir", "unlink", "mv", "cp", "chmod", "chown", "truncate", "tee", "sh", "bash"}
    | {"Set-Content", "Out-File", "Add-Content", "Remove-Item", "Stop-Process", "Move-Item", "Copy-Item"}
    | {"pbcopy", "xclip", "xsel", "wl-copy", "clip", "clip.exe", "Set-Clipboard", "scb"}  # into the clipboard
)
"""A pipeline whose last stage runs one of these acts on what its search picked: not a lookup (``cat key.pub |
pbcopy`` prints nothing because the clipboard took it)."""
HARNESS_OUTPUT: Final = re.compile(r"/tasks/[^/\s]+\.output\b|/scratchpad(?:/|\b)|/tool-results/[^/\s]+\.txt\b")
"""The harness's own output files (a background task's ``.output``, the session's scratchpad, a tool output
Claude Code kept aside for being large: ``toolUseResult.persistedOutputPath``, ``<session>/tool-results/``)."""
SKILL_FILE_READERS: Final = frozenset({"cat", "head", "sed"})
"""Shell reads of a SKILL.md that open the skill's segment (the fallback signal)."""


def edits_in_place(program: str, args: list[str]) -> bool:
    """``sed -i``/``-i.bak``/``-Ei``/``--in-place``, ``perl -i``/``-pi``/``-pie``: the program rewrites the
    files it names (the one reading of an in-place edit: acting stages, removals, §8.3's writes)."""
    if program not in ("sed", "perl"):
        return False
    valued = _SED_VALUED if program == "sed" else _PERL_VALUED
    for arg in args:
        if arg.startswith("--in-place") or arg.startswith("-i"):
            return True
        if arg.startswith("-") and not arg.startswith("--"):
            for letter in arg[1:].lstrip("0123456789"):  # a cluster (``-Ei``, ``-pi``, ``-lpi``, ``-0777pi``) up
                if letter == "i":  # to a letter whose value is the rest of the word (``-Ilib``, ``-Mstrict``)
                    return True
                if letter in valued or not (letter.isalpha() or letter.isdigit()):
                    break
    return False


_SED_VALUED: Final = frozenset("efl")
_PERL_VALUED: Final = frozenset("IMmeExCdDV")  # ``-l``/``-0`` take digits only
