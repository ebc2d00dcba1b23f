"""Spec §3.1's ``user_given``, for the names a shell search looked for: a search "whose target is a name
the person typed and asked for is ``user_given``: the person's file is missing, not the knowledge". A
proper name of several words (a font, a product: ``Maple Mono``) is a name as a file name is; a plain
lower-case phrase of the prompt is the person's wording, not a name. Decided here, with two readings
apart (both measured on the labelled calls, bench/README.md): a pattern of several alternatives one of
which the person typed (every one typed, or a typed one spelled without its spaces, is theirs), and a
probe of a program the person mentioned (``bun --version`` after "switch to bun?"; ``python3 -m pip``
after a pasted ``pip install``), stay gaps: the prompt alone does not tell a thing the person asked for
from a word they used. And zsh's ``which X`` answer ``X not found`` is a not-found message. Hand-made
transcripts on Claude Code's Bash and Codex's ``exec_command``."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from omkd.engine import quoted_names
from omkd.engine.calls import MAX_PROMPT_CHARS, CallTracker
from omkd.engine.report.schema import Report
from tests import test_failed_search_spec31
from tests.transcript_builder import ABSENT, Transcript, bash_detail, health_of, report_of

pytestmark = pytest.mark.engine


def claude(prompt: str, command: str, output: str, code: int) -> Report:
    return test_failed_search_spec31.claude(command, output, code, prompt)


def codex(prompt: str, command: str, output: str, code: int) -> Report:
    return test_failed_search_spec31.codex_exec(command, output, code, prompt)


AGENTS = pytest.mark.parametrize("agent", [claude, codex], ids=["claude", "codex"])
Agent = Callable[[str, str, str, int], Report]

FONT = "set my terminal font to Maple Mono NF CN"
BUN = "can the frontend switch to bun?"


def verdicts(report: Report) -> tuple[int, int]:
    """(failed searches, user-given misses) of the report."""
    return report.overall.by_type["failed_search"], health_of(report, "general").user_given_misses


@AGENTS
@pytest.mark.parametrize(
    ("prompt", "command", "expected"),
    [
        (FONT, 'system_profiler SPFontsDataType | rg "Maple Mono"', (0, 1)),
        (FONT, "fc-list | grep 'Maple Mono NF'", (0, 1)),
        (FONT, 'system_profiler SPFontsDataType | rg "Fira Code"', (1, 0)),  # not the person's
        ("add error handling to the upload", 'rg "error handling" src', (1, 0)),  # a plain phrase
        (FONT, 'fc-list | rg -i "Maple Mono|MapleMono|NF CN"', (0, 1)),  # the typed names and a spelling
        (FONT, 'fc-list | rg -i "Maple Mono|Fira Code"', (1, 0)),  # one alternative is the agent's
        (FONT, 'fc-list | rg -i "Maple Mono|mono"', (1, 0)),  # a plain word is no name
        (FONT, 'fc-list | rg -i "Maple|MapleMono"', (1, 0)),  # a part of the name is not the name
    ],
    ids=[
        "rg phrase",
        "grep phrase",
        "another font",
        "plain phrase",
        "alternatives typed",
        "alternatives not all typed",
        "alternative a plain word",
        "alternative a part",
    ],
)
def test_a_proper_name_of_several_words_the_person_typed_is_theirs(
    agent: Agent, prompt: str, command: str, expected: tuple[int, int]
) -> None:
    assert verdicts(agent(prompt, command, "", 1)) == expected


@AGENTS
def test_a_probe_of_a_program_the_person_mentioned_stays_a_gap(agent: Agent) -> None:
    assert verdicts(agent(BUN, "bun --version", "zsh:1: command not found: bun", 127)) == (1, 0)


@AGENTS
@pytest.mark.parametrize(
    "output", ["bun not found", "which: no bun in (/usr/bin:/bin)", ""], ids=["zsh", "gnu", "empty"]
)
def test_which_answers_not_found_in_every_shell_s_words(agent: Agent, output: str) -> None:
    """§3.1: ``which X`` is a probe; zsh's answer ``X not found`` is its not-found message, as GNU which's is."""
    assert verdicts(agent("make the build faster", "which bun", output, 1)) == (1, 0)


@AGENTS
@pytest.mark.parametrize(
    ("prompt", "command", "output", "expected"),
    [
        ("需要跑nca命令，根据错误修复问题", "type nca", "nca not found", (0, 1)),
        ("run the nca command after each test", "which nca", "nca not found", (0, 1)),
        ("run the nca command after each test", "command -v nca", "", (0, 1)),
        ("run it with npx vitest", "Get-Command node,npm,npx -ErrorAction SilentlyContinue", "", (0, 1)),
        ("run it with npx vitest", "Get-Command node, npm, npx -ErrorAction SilentlyContinue", "", (0, 1)),
        ("run the checks after each test", "which nca", "nca not found", (1, 0)),  # not the person's
        ("can the frontend switch to bun?", "bun --version", "zsh:1: command not found: bun", (1, 0)),  # a probe
    ],
    ids=[
        "type, in a Chinese sentence",
        "which",
        "command -v",
        "Get-Command list",
        "Get-Command array",
        "not typed",
        "a probe",
    ],
)
def test_a_program_the_person_named_looked_up_by_which_or_type_is_theirs(
    agent: Agent, prompt: str, command: str, output: str, expected: tuple[int, int]
) -> None:
    """``which X``, ``type X``, ``command -v X``, ``Get-Command a,b`` are searches for a program by name
    (spec §3.1 lists them with the searches): a program the person named is a name whatever it reads
    like (``nca`` is no file name and no identifier), so its miss is the person's (``user_given``). A
    probe that runs the program (``bun --version``) is no search of a name and stays a gap."""
    assert verdicts(agent(prompt, command, output, 1)) == expected


GROUP = "查看群聊对话“AI之初”为什么文件没有实际发送到对话"


@AGENTS
@pytest.mark.parametrize(
    ("prompt", "command", "expected"),
    [
        (GROUP, 'rg "AI之初" logs', (0, 1)),
        (GROUP, "grep -rn 'ai之初' server/", (0, 1)),  # a case-blind search of the quoted name
        ("why did 「月次レポート」 not arrive?", 'rg "月次レポート" src', (0, 1)),
        ('find the "retry budget" setting', 'rg "retry budget" src', (0, 1)),
        ("lies „Kundendaten“ aus", "grep -rl Kundendaten .", (0, 1)),
        ("查看群聊对话AI之初为什么文件没有实际发送", 'rg "AI之初" logs', (1, 0)),  # not quoted
        (GROUP, 'rg "AI之" logs', (1, 0)),  # a part of the quoted name
        (GROUP, 'rg "AI之初|群聊" logs', (1, 0)),  # alternatives: not the phrase
        ('find the "retry budget" setting', 'rg "retry" src', (1, 0)),  # one word of it
    ],
    ids=[
        "cjk quotes",
        "case-blind",
        "corner brackets",
        "ascii quotes",
        "german quotes",
        "not quoted",
        "part of it",
        "alternatives",
        "one word",
    ],
)
def test_a_phrase_the_person_quoted_is_a_name_they_typed(
    agent: Agent, prompt: str, command: str, expected: tuple[int, int]
) -> None:
    """§3.1: a search "whose target is a name the person typed" is ``user_given``. A phrase the person
    put in quotation marks is a thing they named, in any language and whatever it reads like: a group
    chat ``“AI之初”`` is no file name and no identifier, and a Chinese sentence has no spaces to mark it.
    The search must look for the quoted phrase whole: a part of it, one word of it, or a list of
    alternatives holding it is the agent's own search."""
    assert verdicts(agent(prompt, command, "", 1)) == expected


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [("AI之初", (0, 1)), ("AI之初.*文件", (1, 0)), ("群聊", (1, 0))],
    ids=["the quoted name", "a regex around it", "another word"],
)
def test_a_grep_of_a_phrase_the_person_quoted_is_theirs(pattern: str, expected: tuple[int, int]) -> None:
    t = Transcript()
    t.prompt(GROUP)
    t.grep_miss(pattern)
    assert verdicts(report_of(t)) == expected


@AGENTS
@pytest.mark.parametrize(
    ("prompt", "command", "output", "expected"),
    [
        (GROUP, 'rg -e "AI之初" -e "群聊" logs', "", (1, 0)),  # two patterns: alternatives
        (GROUP, 'grep -rn -e "AI之初" logs', "", (0, 1)),  # one pattern given with -e
        ('open the "retry budget" file', 'find . -name "retry budget" -o -name "retry_budget.md"', "", (1, 0)),
        ('find the "retry budget" setting', 'findstr /s "retry budget" *.cfg', "", (1, 0)),  # findstr: each word
        ('find the "retry budget" setting', 'findstr /s /c:"retry budget" *.cfg', "", (0, 1)),  # one literal
        (
            'find the "retry budget" setting',
            'grep -q "retry budget" a.cfg && echo yes; grep -q max_backoff a.cfg || echo "no max_backoff"',
            "yes\nno max_backoff",
            (1, 0),
        ),  # the stage that missed looked for something else
        ("trouve le réglage « retry budget » dans la config", 'rg "retry budget" src', "", (0, 1)),
        ("trouve le réglage «\u202fretry budget\u202f» dans la config", 'rg "retry budget" src', "", (0, 1)),
        ("don't touch 'retry budget' yet, I'd say it's there", 'rg "retry budget" src', "", (0, 1)),
    ],
    ids=[
        "two -e",
        "one -e",
        "find -o",
        "findstr words",
        "findstr /c:",
        "another stage missed",
        "guillemets with spaces",
        "guillemets with narrow no-break spaces",
        "apostrophes around",
    ],
)
def test_a_quoted_phrase_excuses_only_a_search_for_it_alone(
    agent: Agent, prompt: str, command: str, output: str, expected: tuple[int, int]
) -> None:
    """The phrase must be what every lookup of the call looked for: several patterns (``-e A -e B``,
    ``find -name A -o -name B``, findstr's words without ``/C:``) are alternatives, and in a list whose
    other lookup missed, that miss is the agent's. French puts spaces inside its guillemets; a prompt
    full of apostrophes still quotes with them."""
    assert verdicts(agent(prompt, command, output, 1)) == expected


@pytest.mark.parametrize(
    ("prompt", "command", "output"),
    [
        (
            "what is in ~/ on this box?",
            "ls /home/ubuntu/",
            "ls: cannot access '/home/ubuntu/': No such file or directory",
        ),
        ("look in ./ first", "ls /home/dev/shop/", "ls: cannot access '/home/dev/shop/': No such file or directory"),
    ],
    ids=["a home with its slash", "the cwd with its slash"],
)
def test_a_path_typed_as_its_short_form_is_theirs(prompt: str, command: str, output: str) -> None:
    """A home directory typed as ``~/`` and the cwd typed as ``./`` are the paths ``/home/ubuntu/`` and
    ``/home/dev/shop/``: the forms the path is compared in need not end in its last component."""
    assert verdicts(claude(prompt, command, output, 2)) == (0, 1)


@AGENTS
@pytest.mark.parametrize(
    ("prompt", "command", "output"),
    [
        (GROUP, 'grep -rne "群聊" -e "AI之初" logs', ""),
        (GROUP, 'rg -e"群聊" -e "AI之初" logs', ""),
        ('look in "logs"', "grep -eAI之初 -e群聊 logs", ""),
        ('the patterns are in "ids"', "grep -rf ids logs", ""),
        ('find "retry budget"', 'rg -ie backoff -e "retry budget" src', ""),
        ('find the "retry budget" setting', 'findstr /s /C:"retry budget" /C:"backoff" *.cfg', ""),
        ('find "retry budget"', 'findstr /C:"retry budget" /G:pats.txt *.cfg', ""),
        (
            'summarise "meeting notes"',
            'bat "docs/meeting notes"',
            "[bat error]: 'docs/meeting notes': No such file or directory (os error 2)",
        ),
        ('find the "retry budget" setting', 'find . -name "retry budget" -exec grep -l "max_backoff" {} +', ""),
        ('rename "alpha" and "beta"', 'grep -rn "and" src', ""),
        ('the "config" in the "retry budget" file', 'grep -rn "in the" src', ""),
    ],
    ids=[
        "-rne bunched",
        "-e attached",
        "-e values attached",
        "-f bunched",
        "-ie bunched",
        "findstr two /C:",
        "findstr /G:",
        "a reader not read as a name search",
        "find -exec grep",
        "between two quotes",
        "between two quotes again",
    ],
)
def test_what_is_not_one_quoted_phrase_alone_stays_a_gap(agent: Agent, prompt: str, command: str, output: str) -> None:
    """Patterns bunched with other flags or holding their values (``-rne A -e B``, ``-eA``, ``-rf file``),
    several findstr strings, a reader, a ``find`` that runs a search on what it finds, and the words between
    two quoted phrases are no one quoted phrase: the miss stays a gap."""
    assert verdicts(agent(prompt, command, output, 1))[1] == 0


def test_the_quoted_phrases_of_one_prompt() -> None:
    assert quoted_names.quoted_phrases('rename "alpha" and "beta"') == {"alpha", "beta"}
    assert quoted_names.quoted_phrases("don't use 'retry budget' in Bob's code") == {"retry budget"}
    assert quoted_names.quoted_phrases("don’t touch ‘retry’ yet") == {"retry"}
    assert quoted_names.quoted_phrases("看看“AI之初”和「月次」,'x y'") == {"ai之初", "月次", "x y"}
    assert quoted_names.quoted_phrases("lies „Kundendaten“ und « retry budget »") == {"kundendaten", "retry budget"}
    assert quoted_names.quoted_phrases('a "b\nc" d') == set()  # no phrase across lines
    assert quoted_names.quoted_phrases("“" * 5000 + "x”") == {"x"}  # the nearest opening mark, once


def test_a_phrase_leaves_with_the_prompt_that_quoted_it() -> None:
    """The tracker counts the phrases of the kept prompts as prompts come and go: a prompt dropped past
    MAX_PROMPT_CHARS no longer excuses a search for what it quoted."""
    tracker = CallTracker(None, frozenset())
    tracker.remember_prompt('look at "retry budget" first')
    tracker.remember_prompt('and at "backoff"')
    assert tracker._quoted_phrases() == {"retry budget": 1, "backoff": 1}
    tracker.remember_prompt('again "backoff"')
    assert tracker._quoted_phrases()["backoff"] == 2
    tracker.remember_prompt("x" * (MAX_PROMPT_CHARS - 30))  # pushes the first two out
    assert tracker._quoted_phrases() == {"backoff": 1}
    restored = CallTracker.__new__(CallTracker)
    restored.__setstate__(tracker.__getstate__())
    assert restored._quoted_phrases() == {"backoff": 1}


def powershell_call(prompt: str, command: str) -> Report:
    t = Transcript()
    t.prompt(prompt)
    t.call("PowerShell", {"command": command}, "", is_error=True)
    return report_of(t)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('Select-String -Pattern "retry budget" -Path *.cfg', (0, 1)),
        ('sls -Pattern "retry budget" *.cfg', (0, 1)),
        ('Select-String "retry budget" -Path *.cfg -SimpleMatch', (0, 1)),
        ('Get-ChildItem -Recurse | Select-String -Pattern "retry budget"', (0, 1)),
        ('Select-String -Pattern "retry budget","backoff" -Path *.cfg', (1, 0)),  # two patterns
    ],
    ids=["-Pattern", "sls", "-SimpleMatch", "piped", "two patterns"],
)
def test_select_string_s_parameters_are_no_grep_flags(command: str, expected: tuple[int, int]) -> None:
    """PowerShell's ``-Pattern``, ``-SimpleMatch``, ``-Path`` are parameters, not grep's bunched flags: a
    Select-String of one quoted phrase is the person's; of two patterns, not."""
    assert verdicts(powershell_call('open the "retry budget" file', command)) == expected


@AGENTS
@pytest.mark.parametrize(
    "command",
    [
        'grep -r --regexp=foo "retry budget"',
        'rg --regexp=max_backoff "retry budget"',
        'grep -r --regex=foo "retry budget"',
        'grep --fil=pats "retry budget"',
        "rg --files -g retry -g budget",
    ],
    ids=["--regexp=", "rg --regexp=", "abbreviated", "--fil", "rg --files two globs"],
)
def test_a_pattern_given_as_an_option_s_value_is_not_read_as_the_phrase(agent: Agent, command: str) -> None:
    """``--regexp=foo "retry budget"`` looks for foo in the person's file: the operand is no pattern. GNU
    long options may be abbreviated. ``rg --files -g A -g B`` lists two names."""
    assert verdicts(agent('open the "retry budget" file', command, "", 1))[1] == 0


def test_a_prompt_cut_to_its_end_is_read_from_its_first_whole_line() -> None:
    """A prompt kept only by its last MAX_PROMPT_CHARS starts inside a line whose marks' pairs are unknown."""
    tracker = CallTracker(None, frozenset())
    tracker.remember_prompt('"' + "p" * 70_000 + '" please check "retry budget" and the rest\nthen "backoff"')
    assert tracker._quoted_phrases() == {"backoff": 1}


@AGENTS
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("rg -n 'legacy_pricing\\.csv' src", (0, 1)),  # the typed name, its dot escaped
        ("grep -rn 'legacy_pricing\\.csv' src", (0, 1)),
        ("rg -n 'legacy_pricing.\\.csv' src", (1, 0)),  # not the name: a regex around it
    ],
    ids=["rg escaped dot", "grep escaped dot", "a regex"],
)
def test_a_name_with_its_punctuation_escaped_is_the_name(agent: Agent, command: str, expected: tuple[int, int]) -> None:
    """§3.1 ``user_given``: ``legacy_pricing\\.csv`` looks for the name ``legacy_pricing.csv`` the person typed;
    an escaped punctuation mark is itself."""
    assert verdicts(agent("is legacy_pricing.csv still used anywhere?", command, "", 1)) == expected


def test_a_grep_of_a_typed_name_with_an_escaped_dot_is_theirs() -> None:
    t = Transcript()
    t.prompt("is legacy_pricing.csv still used anywhere?")
    t.call("Grep", {"pattern": "legacy_pricing\\.csv", "path": "/home/dev/shop"}, "No files found")
    assert verdicts(report_of(t)) == (0, 1)


@pytest.mark.parametrize(
    ("prompt", "calls", "expected"),
    [
        ("compare our lint rules with ../shared/docs/style.md",
         [("Read", {"file_path": "/home/dev/shared/docs/style.md"}, "File does not exist.", True)], (0, 1)),
        ("is there a CODEOWNERS file?", [("Glob", {"pattern": "**/CODEOWNERS"}, "No files found", False)], (0, 1)),
        ("the crash says SIGINT, why?", [("Grep", {"pattern": "SIGINT"}, "No files found", False)], (1, 0)),
        ("read https://docs.acme.dev/v2/limits please", [("WebFetch", {"url": "https://docs.acme.dev/v2/limits/"},
          "Request failed with status code 404", True)], (0, 1)),
        ("read https://docs.acme.dev/v2/limits please", [("WebFetch", {"url": "https://docs.acme.dev/v2"},
          "Request failed with status code 404", True)], (1, 0)),  # the agent cut the person's URL short
        ("the numbers are at https://docs.acme.dev/v2/errors#rate-limits", [("WebFetch",
          {"url": "https://docs.acme.dev/v2/errors"}, "Request failed with status code 404", True)], (0, 1)),
        ("is https://cdn.acme.dev/assets/v5/manifest.json reachable?", [("Bash", {
          "command": "curl -s -o /dev/null -w '%{http_code}' https://cdn.acme.dev/assets/v5/manifest.json"}, "404",
          False)], (0, 1)),
    ],
    ids=["a path above the cwd", "a file name in capitals, globbed", "a word in capitals, grepped",
         "a slash added", "a URL cut short", "a fragment dropped", "curl of the person's URL"],
)  # fmt: skip
def test_what_the_person_typed_is_theirs(prompt: str, calls: list[tuple[str, dict[str, str], str, bool]],
                                         expected: tuple[int, int]) -> None:  # fmt: skip
    """§3.1 ``user_given``: a path relative to the cwd (``../shared/…``), a file's name in capitals searched by
    name, the person's URL however its end is written (a slash, a query or a fragment aside) are theirs; a
    word of a pasted error searched in files' text, or a URL the agent shortened, stays a gap."""
    t = Transcript()
    t.prompt(prompt)
    for tool, tool_input, content, error in calls:
        if tool == "Bash":
            t.call(tool, tool_input, content, detail=bash_detail(stdout=content))
        else:
            t.call(tool, tool_input, content, is_error=True if error else ABSENT)
    assert verdicts(report_of(t)) == expected


def test_alternatives_with_their_dots_escaped_are_the_typed_names() -> None:
    """§3.1 ``user_given``: ``legacy_pricing\\.csv|old_rates\\.csv`` looks for the two names the person typed."""
    t = Transcript()
    t.prompt("are legacy_pricing.csv or old_rates.csv still used?")
    t.call("Grep", {"pattern": "legacy_pricing\\.csv|old_rates\\.csv", "path": "/home/dev/shop"}, "No files found")
    assert verdicts(report_of(t)) == (0, 1)
