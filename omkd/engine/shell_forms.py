"""Shell forms beyond the short list (spec §3.1): carried commands, probes, HTTP clients, stages that act.

``shell.parse`` asks these of each simple command: whether it carries another command to run
(``ssh HOST "CMD"``, ``bash -lc '…'``: that command is parsed in its place), whether it is a package,
module or tool probe (``pip show X``) or an HTTP client, and whether a pipeline acts on what its
search picked (``… | xargs kill``, ``> file``) or only filters out (``grep -v``). The rule rows are
``shell_rules.CARRIERS``, ``PROBES``, ``INVERTED``, ``ACTING_PROGRAMS`` and ``http_lookups.HTTP_CLIENTS``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from typing import Final

from omkd.engine import find_forms, http_lookups, powershell, run_checks, shell_rules
from omkd.engine.shell_words import dequoted, raw_words

_FILE_REDIRECT: Final = re.compile(r"""^(?:&|1)?>>?(.*)$""")
_NOT_FILES: Final = frozenset({"/dev/null", "NUL", "$null", "nul", "/dev/stdout", "/dev/stderr"})


def carried(program: str, raw_args: list[str]) -> str | None:
    """The command a carrier runs (its words as written, outer quotes removed), or None."""
    rule = shell_rules.CARRIERS.get(program)
    if rule is None:
        return None
    args = raw_args
    at = 0
    for word in rule.before:
        while at < len(args) and args[at] != word:
            at += 2 if args[at] in rule.value_flags else 1
        if at >= len(args):
            return None
        at += 1
    if rule.after_dashes:
        rest = args[args.index("--", at) + 1 :] if "--" in args[at:] else []
        return " ".join(rest) or None
    if rule.command_flags or rule.shell_flags:
        for index in range(at, len(args)):
            flag = args[index]
            if flag in rule.command_flags or (
                rule.shell_flags and flag.startswith("-") and not flag.startswith("--") and "c" in flag[1:]
            ):
                if index + 1 >= len(args):
                    return None
                if rule.shell_flags:  # bash -c CMD [NAME ARGS…]: only CMD is the command
                    return dequoted(args[index + 1])
                return " ".join(dequoted(a) for a in args[index + 1 :])
        return None
    skipped = 0
    while at < len(args):
        word = args[at]
        if word == "--":
            at += 1
            break
        if word.startswith("-"):
            at += 2 if word in rule.value_flags else 1
            continue
        if skipped < rule.operands_before:
            skipped += 1
            at += 1
            continue
        break
    rest = args[at:]
    if len(rest) == 1:
        return dequoted(rest[0])
    return " ".join(rest) or None


_WINDOWS_OWN: Final = frozenset({"find.exe"})
"""Windows programs that are not the Unix one of their name (``find.exe`` filters lines, as ``findstr``)."""


def program_name(word: str) -> str:
    """The program a command word runs: its last path component (``/usr/bin/grep``: ``grep``), a Windows
    program without its ``.exe`` (``curl.exe``, ``C:\\tools\\rg.exe``: the same program as anywhere), a
    batch shim without its ``.cmd`` or ``.bat``."""
    name = word.rpartition("/")[2]
    if name[-4:].lower() not in (".exe", ".cmd", ".bat"):  # ``npm.cmd``, ``yarn.bat``: Windows' shims
        return name
    name = name.rpartition("\\")[2]
    return name if name.lower() in _WINDOWS_OWN else name[:-4]


def carried_command(program: str, text: str) -> str | None:
    """The command a carrier stage (``ssh HOST "CMD"``, ``bash -lc '…'``) carries, None for another."""
    if program not in shell_rules.CARRIERS:
        return None
    raw = raw_words(text)
    at = next((i for i, w in enumerate(raw) if program_name(w.strip("'\"(")) == program), None)
    return None if at is None else carried(program, raw[at + 1 :])


def past_options(found: list[str], value_flags: frozenset[str]) -> list[str]:
    """The words after a wrapper's own options (``sudo -u postgres``, ``xargs -0``): the values of
    ``value_flags`` skipped with them; ``--`` ends them."""
    at = 0
    while at < len(found) and found[at].startswith("-") and found[at] != "-":
        if found[at] == "--":
            return found[at + 1 :]
        at += 2 if found[at] in value_flags else 1
    return found[at:]


def without_values(args: list[str], value_flags: frozenset[str]) -> list[str]:
    """The arguments without ``value_flags`` and the value after each (``-n +20``, ``-c %s``, ``-e py``)."""
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in value_flags:
            skip = True
        else:
            kept.append(arg)
    return kept


def filters_out(program: str, args: list[str]) -> bool:
    """A search stage that only filters out (``grep -v``, ``Select-String -NotMatch``)."""
    if program not in shell_rules.CONTENT_SEARCHES:
        return False
    select = powershell.cmdlet(program)  # Select-String's ``-NotMatch``, in any case
    if select is not None:
        return "notmatch" in powershell.bind(select, args).switches
    without = program != "rg"  # rg's -L follows links; grep's, ag's and ack's list the files without a match
    for arg in args:
        if arg in shell_rules.INVERTED and (without or arg != "-L"):
            return True
        combined = arg.startswith("-") and not arg.startswith("--") and len(arg) > 2 and arg[1:].isalpha()
        if combined and ("v" in arg[1:] or (without and "L" in arg[1:])):
            return True  # combined short flags: -iv, -rnv, -rL
    return False


_ACTING_WORDS: Final[frozenset[str]] = frozenset(p.lower() for p in shell_rules.ACTING_PROGRAMS) | {
    "del", "erase", "ri", "rd", "move", "mi", "copy", "cpi", "sc", "ac", "spps"
}  # fmt: skip
"""The acting programs in any case, and PowerShell's aliases of its acting cmdlets (``del``, ``ri``, ``mi``…)."""


def acts(program: str, args: list[str], text: str) -> bool:
    """The stage acts: an acting program, an in-place edit, or its output redirected into a file (not ``2>``,
    not /dev/null)."""
    if program in shell_rules.ACTING_PROGRAMS:
        return True
    if program.lower() in ("foreach-object", "%", "foreach") and any(  # ``| ForEach-Object { Remove-Item $_ }``
        word.strip("{}();").lower() in _ACTING_WORDS for word in text.split()
    ):
        return True
    if shell_rules.edits_in_place(program, args):
        return True  # ``| xargs sed -i 's/a/b/'``: edits the files the search picked
    return any(not target.startswith("&") and target not in _NOT_FILES for target in _stdout_targets(text))


def _stdout_targets(text: str) -> list[str]:
    """Where a stage's standard output is redirected (``> f``, ``>>f``, ``&>/dev/null``; not ``2>``)."""
    if ">" not in text:  # most stages redirect nothing: no need to split them into words
        return []
    words = raw_words(text)
    targets = []
    for index, word in enumerate(words):
        if ">" not in word or word.startswith("2>"):
            continue
        found = _FILE_REDIRECT.match(word)
        if found is not None:
            target = dequoted(found.group(1) or (words[index + 1] if index + 1 < len(words) else ""))
            targets += [target] if target else []
    return targets


_QUIET_FLAGS: Final = frozenset({"-q", "--quiet", "--silent"})
_NULL: Final = frozenset({"/dev/null", "nul", "$null"})


def silenced(program: str, args: list[str], text: str) -> bool:
    """A search stage whose output nobody sees: a quiet grep (``grep -q``, ``rg --quiet``; the exit status
    is its answer) or one whose standard output is sent away (``ls X > /dev/null``, ``> $null``)."""
    if program in shell_rules.GREP_FAMILY and any(
        a in _QUIET_FLAGS or (a.startswith("-") and not a.startswith("--") and "q" in a[1:] and a[1:].isalpha())
        for a in args
    ):
        return True
    return any(target.lower() in _NULL for target in _stdout_targets(text))  # ``| Out-Null``: ``shell._close``


def not_looking(stages: Sequence[tuple[str, list[str]]], last_text: str) -> bool:
    """A pipeline whose searches look for no missing thing, so that an empty output is no miss: its last
    stage acts (it picked what to act on: ``| xargs kill``, ``> file``), a ``find`` acts on what it
    finds (``-delete``, ``-exec rm``), a search stage only filters out (``grep -v``), or its first stage
    builds, tests or checks and the rest read its diagnostics (``tsc --noEmit | grep src/``)."""
    return (
        acts(*stages[-1], last_text)
        or any(find_forms.acts(program, args) for program, args in stages)
        or _filters_only(stages)
        or run_checks.checks_a_run(*stages[0])
    )


def _filters_only(stages: Sequence[tuple[str, list[str]]]) -> bool:
    """The pipeline's last search only filters out: it asks what is left (``grep GET log | grep -v 200``:
    "nothing left that is not 200"). A search after a filter looks for its text (``grep -v '^#' f | grep
    X`` looks for X); ``grep -v grep`` after ``ps | grep X`` drops the grep itself (``excludes_itself``)."""
    greps = [(p, a) for p, a in stages if _greps(p, a) and not excludes_itself(p, a)]
    return bool(greps) and filters_out(*greps[-1])


def _greps(program: str, args: list[str]) -> bool:
    """A search of a pattern (``git grep`` too, ``rg --files -g X`` of names); ``rg --files`` alone lists."""
    if program == "git":
        return args[:1] == ["grep"]
    listing = program == "rg" and "--files" in args and not rg_listed_names(args)
    return program in shell_rules.CONTENT_SEARCHES and not listing


def skipped(program: str, args: list[str], made: set[str]) -> bool:
    """A stage of a pipeline that is no search of its own: it reads the harness's output files, looks at
    what the same command just made, or drops the pipeline's own grep from a process list."""
    return (
        (reads_harness_output(args) and not http_lookups.is_http_client(program))  # ``curl -o …/scratchpad/x``
        or (bool(made) and looks_at_made(program, operands(args), made))
        or excludes_itself(program, args)
    )


def excludes_itself(program: str, args: list[str]) -> bool:
    """``grep -v grep`` after ``ps aux | grep X``: it drops the line of the grep process itself, not
    anything that was looked for — the pipeline still searches for X (an exclusion that filters what
    was looked for, ``grep -v 200``, makes an empty answer no miss)."""
    return program in shell_rules.GREP_FAMILY and filters_out(program, args) and operands(args) == ["grep"]


_CWD: Final = frozenset({".", "./"})
_FIND_LOOKING: Final = frozenset({"-regex", "-iregex", "-exec", "-execdir", "-ok", "-okdir", "-newer", "-size"})
_NARROWING: Final = frozenset({"-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not", "-e", "--extension"})


def lists_the_cwd(program: str, args: list[str]) -> bool:
    """``rg --files``, ``fd``, ``find .`` (``-type f`` allowed) naming nothing: a listing of the current
    directory, as bare ``ls`` is — not a search for something (spec §3.1's ``ls <path>``)."""
    if program == "find":  # ``-exec grep …`` searches the files' content
        return not any(a in find_forms.NAME_FLAGS or a in _FIND_LOOKING for a in args) and (
            not args or args[0] in _CWD or args[0].startswith("-")
        )
    if (program == "rg" and "--files" in args) or program == "fd":
        narrowed = any(a in _NARROWING or a.startswith(("--glob=", "--type=", "-g", "-t")) for a in args)
        return not narrowed and all(a in _CWD for a in operands(args))
    return False


def reads_harness_output(args: list[str]) -> bool:
    """It reads the harness's own output files (a task's ``.output``, the scratchpad, a kept tool output)."""
    # One search over the words joined by newlines finds what a search of each would: no match
    # can cross a newline (nor start or end differently at one).
    joined = "\n".join(args)
    if "\\" in joined:  # a Windows path (``…\\Temp\\claude\\…\\tasks\\x.output``) read as the same file
        joined = joined.replace("\\", "/")
    return any(key in joined for key in _HARNESS_KEYS) and shell_rules.HARNESS_OUTPUT.search(joined) is not None


_HARNESS_KEYS: Final = ("/tasks/", "/scratchpad", "/tool-results/")
"""A word holding none of these names no harness output file (the cheap test before the expression)."""


def operands(args: list[str]) -> list[str]:
    """Arguments that are not options or redirections."""
    return [a for a in args if a and not a.startswith("-") and "<" not in a and ">" not in a and "&" not in a]


_COUNT: Final = re.compile(r"^[+-]?\d+$")


def path_operands(program: str, args: list[str]) -> list[str]:
    """The paths a path program (``ls``, ``cat``, ``head``, ``sed -n``, ``Get-Content``…) names: not the
    value of a reader's option (``head -n 20``, ``stat -c %s``), a bare count, ``sed``'s script or a
    test's closing bracket. None at all: the program reads what is piped to it (``git log | head -n 20``)."""
    plain = without_values(args, shell_rules.READER_VALUE_FLAGS.get(program, frozenset()))
    found = [
        a
        for a in powershell.operands(program, args, operands(plain))
        if not _COUNT.match(a) and a not in ("]", "]]", "!") and not (program == "stat" and a.startswith("%"))
    ]  # ``stat -f %z F``: BSD's format, as GNU's ``-c %s``
    found = [a for a in found if not cmd_switch(program, a)]
    return found[1:] if program == "sed" else found  # the first is the script


_CMD_SWITCH: Final = re.compile(r"^/[A-Za-z?](?::\S*)?$")
_CMD_PROGRAMS: Final = frozenset({"dir", "where", "where.exe", "findstr", "type"})


def cmd_switch(program: str, word: str) -> bool:
    """A switch of cmd's ``dir``, ``where``, ``findstr``, ``type`` (``/s``, ``/b``, ``/a:d``): no operand."""
    return program in _CMD_PROGRAMS and _CMD_SWITCH.match(word) is not None


def rg_listed_names(args: list[str]) -> list[str]:
    """``rg --files``' globs (the names it lists: ``-g X``, ``--glob=X``, ``-gX``), those that exclude
    (``!node_modules``) left out."""
    globs: list[str] = []
    for i, arg in enumerate(args):
        if arg in shell_rules.RG_GLOBS:
            value = args[i + 1] if i + 1 < len(args) else ""
        elif arg.startswith(("--glob=", "--iglob=")):
            value = arg.split("=", 1)[1]
        elif arg.startswith("-g") and len(arg) > 2 and not arg.startswith("--"):
            value = arg[2:]
        else:
            continue
        if value and not value.startswith("!"):
            globs.append(value)
    return globs


def made_paths(words: list[str]) -> list[str]:
    """The paths ``mkdir``/``touch`` operands name, as a later reader's operands are compared."""
    return [_plain_path(a) for a in words]


def looks_at_made(program: str, words: list[str], made: set[str]) -> bool:
    """A reader or test whose operands (``words``) are all paths an earlier part of the same command made
    (``mkdir -p X && ls X``): empty by design, not a thing that is missing (``shell.ParsedCommand.made``)."""
    rule = shell_rules.SHELL_RULE
    if not made or (program not in rule.path_programs and program not in rule.test_programs):
        return False
    paths = [_plain_path(a) for a in words if a not in rule.test_flags and a not in ("[", "]")]
    return bool(paths) and all(p in made for p in paths)


def _plain_path(word: str) -> str:
    return word.strip("'\"").rstrip("/") or word


def basename(path: str) -> str:
    return posixpath.basename(path.replace("\\", "/").rstrip("/"))
