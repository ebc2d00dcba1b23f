"""Spec §8.2, tool by tool: what a search looked for, when a later one looks for the same, and when a
lookup's output names it. Expectations are written by hand from the spec's words."""

from __future__ import annotations

from typing import Any

import pytest

from omkd.engine.events import ToolCall
from omkd.engine.metacog.targets import names, naming_words, same_target, shell_target, strong, target_of

pytestmark = pytest.mark.engine


def _call(tool: str, tool_input: dict[str, Any]) -> ToolCall:
    return ToolCall(None, "m1", "c1", tool, tool_input, None, None)


@pytest.mark.parametrize(
    ("tool", "tool_input", "paths", "names_"),
    [
        ("Read", {"file_path": "/home/dev/p/README.md"}, ("~/p/README.md",), ("README.md",)),  # its last component
        ("list_directory", {"path": "./docs"}, ("docs",), ("docs",)),
        ("Glob", {"pattern": "src/**/spotter*.css"}, (), ("spotter*.css",)),
        ("Glob", {"pattern": "**/deploy.yaml", "path": "/srv/ops"}, ("/srv/ops",), ("deploy.yaml",)),
    ],
)
def test_file_and_name_targets(
    tool: str, tool_input: dict[str, Any], paths: tuple[str, ...], names_: tuple[str, ...]
) -> None:
    found = target_of(_call(tool, tool_input))
    assert (found.content, found.paths, found.names, found.specific) == (False, paths, names_, True)


@pytest.mark.parametrize(
    ("pattern", "literals", "tokens"),
    [
        ("foo_bar|bazqux", ("foo_bar", "bazqux"), ("foo_bar", "bazqux")),
        (r"def\s+load_config", (), ("load_config",)),
        ("[a-zA-Z0-9]+Handler", (), ("Handler",)),
        ("btn-expand", ("btn-expand",), ("btn-expand",)),
        ("import os", ("import os",), ()),
        # anchors at an alternative's ends say where the text is, not what it is
        ("^font-maple-mono$", ("font-maple-mono",), ("font-maple-mono",)),
        (r"\bload_config\b|^ready:", ("load_config", "ready:"), ("load_config", "ready")),
        (r"^price\$", (), ("price",)),  # an escaped dollar is text: no literal of plain text
    ],
)
def test_a_grep_is_a_content_search(pattern: str, literals: tuple[str, ...], tokens: tuple[str, ...]) -> None:
    found = target_of(_call("Grep", {"pattern": pattern, "path": "src"}))
    assert (found.content, found.literals, found.tokens, found.paths) == (True, literals, tokens, ("src",))


@pytest.mark.parametrize(
    "command",
    [
        "grep -rn ExactDeviceRequest lib", "egrep -r ExactDeviceRequest lib", "rg ExactDeviceRequest lib",
        "ag ExactDeviceRequest lib", "ack ExactDeviceRequest lib", "git grep -n ExactDeviceRequest lib",
    ],
)  # fmt: skip
def test_the_grep_family_in_a_shell_is_a_content_search(command: str) -> None:
    found = shell_target(command)
    assert (found.content, found.literals, found.paths, found.specific) == (
        True,
        ("ExactDeviceRequest",),
        ("lib",),
        True,
    )


@pytest.mark.parametrize("command", ["grep -v DEBUG app.log", "rg --invert-match DEBUG app.log", "grep -rv TODO src"])
def test_an_exclusion_gives_no_target(command: str) -> None:
    assert shell_target(command).specific is False
    assert shell_target(command).tokens == ()


@pytest.mark.parametrize(
    "command",
    [
        "ls -la | grep dialyzer",
        "find . | grep dialyzer",
        "tree | grep dialyzer",
        "rg --files | rg dialyzer",
        "git ls-files | grep -i dialyzer",
    ],
)
def test_a_grep_fed_by_a_listing_is_a_name_probe(command: str) -> None:
    """§8.2.1: a grep after a listing (``rg --files`` and ``git ls-files`` list paths too) looks for names."""
    found = shell_target(command)
    assert (found.content, found.probe, found.names) == (False, True, ("*dialyzer*",))


@pytest.mark.parametrize(
    "command",
    ["git ls-files '*.py' | xargs grep -l dialyzer_conf", "rg --files | xargs rg -l dialyzer_conf"],
)
def test_a_grep_run_by_xargs_after_a_listing_reads_the_files(command: str) -> None:
    """``… | xargs grep X`` greps the listed files' content for X: a content search, not a name probe."""
    found = shell_target(command)
    assert (found.content, found.probe, found.literals) == (True, False, ("dialyzer_conf",))


def test_the_listed_directory_of_a_name_probe_is_where_it_looked_not_what() -> None:
    """``ls ~/.cursor-server/extensions | grep claude`` looked for ``*claude*`` in a directory it listed:
    listing that directory again (``ls ~/.cursor-server/extensions | head``) does not find the name."""
    miss = shell_target("ls ~/.cursor-server/extensions/ | grep -i claude || echo 'none'")
    assert (miss.paths, miss.names) == ((), ("*claude*",))
    assert not same_target(miss, shell_target("ls ~/.cursor-server/extensions/ | head -30"))
    assert same_target(miss, shell_target("find ~ -maxdepth 3 -name '*claude*'"))


@pytest.mark.parametrize(
    ("command", "paths", "names_"),
    [
        ("find src -iname '*settings*'", ("src",), ("*settings*",)),
        ("find . -path '*/migrations/*.sql'", (".",), ("*/migrations/*.sql",)),
        ("fd spotter assets", ("assets",), ("spotter",)),
        ("which uv", (), ("uv",)),
        ("type pnpm", (), ("pnpm",)),
        ("command -v node", (), ("node",)),
        ("Get-Command vswhere.exe", (), ("vswhere.exe",)),  # PowerShell's which
        ("Get-Command -Name gh -ErrorAction SilentlyContinue", (), ("gh",)),  # not the parameter's value
        ("gcm rg", (), ("rg",)),
        ("where python", (), ("python",)),
        ("rg --files -g '*settings*' -g '!node_modules' src", ("src",), ("*settings*",)),  # find's -name
    ],
)
def test_find_and_which_name_things(command: str, paths: tuple[str, ...], names_: tuple[str, ...]) -> None:
    found = shell_target(command)
    assert (found.content, found.paths, found.names, found.specific) == (False, paths, names_, True)


@pytest.mark.parametrize(
    ("command", "path"),
    [
        ("ls -la ~/.cargo/bin", "~/.cargo/bin"), ("ls $HOME/.cargo/bin", "~/.cargo/bin"),
        ("ls ${HOME}/.cargo/bin", "~/.cargo/bin"), ("cat ./config/app.toml", "config/app.toml"),
        ("head -n 5 notes/todo.txt", "notes/todo.txt"), ("tail -n 20 logs/app.log", "logs/app.log"),
        ("sed -n '1,40p' lib/spotter.ex", "lib/spotter.ex"), ("test -e mix.exs", "mix.exs"),
        ("stat README.md", "README.md"), ("Get-Content settings.json", "settings.json"),
        ("Test-Path deploy.ps1", "deploy.ps1"),
    ],
)  # fmt: skip
def test_shell_probes_target_their_operands(command: str, path: str) -> None:
    found = shell_target(command)
    assert (found.content, found.paths, found.specific) == (False, (path,), True)


def test_a_shell_probe_of_a_short_last_component_is_not_specific() -> None:
    assert shell_target("ls src/js").specific is False


def test_web_search_words_of_four_characters() -> None:
    found = target_of(_call("WebSearch", {"query": "uv python install on windows"}))
    assert (found.web, found.tokens) == (True, ("python", "install", "windows"))


@pytest.mark.parametrize(
    ("token", "is_strong"),
    [("agent", False), ("live", False), ("spotter", True), ("btn-x", True), ("v1.2", True), ("a_b", False)],
)
def test_strong_tokens(token: str, is_strong: bool) -> None:
    assert strong(token) is is_strong


def _t(tool: str, **tool_input: Any) -> Any:
    return target_of(_call(tool, tool_input))


@pytest.mark.parametrize(
    ("miss", "later", "same"),
    [
        (_t("Read", file_path="config/deploy.yaml"), _t("Glob", pattern="**/deploy.yaml"), True),
        (_t("Read", file_path="lib/a.c"), _t("Read", file_path="src/a.c"), False),
        (_t("Read", file_path="/home/dev/p/notes"), _t("list_directory", path="~/p/notes"), True),
        (_t("Grep", pattern="spotter_config", path="lib"), _t("Grep", pattern="spotter_config", path="src"), True),
        (_t("Grep", pattern="alpha_one", path="lib"), _t("Grep", pattern="beta_two", path="lib"), False),
        (_t("Grep", pattern="agent", path="lib"), _t("Grep", pattern="agent|live", path="src"), False),
        (_t("WebSearch", query="uv python install windows"), _t("WebSearch", query="install python"), True),
        (_t("WebSearch", query="uv python install windows"), _t("WebSearch", query="python docs"), False),
        (_t("WebSearch", query="ruff config"), _t("WebSearch", query="config options"), True),
    ],
)
def test_same_target(miss: Any, later: Any, same: bool) -> None:
    assert same_target(miss, later) is same


@pytest.mark.parametrize(
    ("pattern", "output", "named"),
    [
        ("spotter.css", "priv/static/assets/spotter.css\n", "spotter.css"),
        ("Dockerfile.prod", "ops/Dockerfile.prod\n", "Dockerfile.prod"),
        ("ExactDeviceRequest", "lib/device.ex: defmodule ExactDeviceRequest do", "ExactDeviceRequest"),
        ("getUser", "src/api.ts: export function getUser() {", "getUser"),
        ("deploy", "ops/deploy.sh\n", None),
        ("spotter", "lib/spotter.ex\n", None),
    ],
)
def test_a_lookup_output_names_a_miss(pattern: str, output: str, named: str | None) -> None:
    assert names(output, naming_words(_t("Grep", pattern=pattern))) == named
