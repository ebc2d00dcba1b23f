"""``omkd impact`` over hand-made git projects (real ``git``, commits with set author dates) and
hand-made transcripts: the figures and exact bounds are written here (``test_impact_engine.py``
says how they were computed), never read back from omkd."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any, Final

import orjson
import pytest
from click.testing import CliRunner

from omkd.cli import main
from omkd.engine.impact.schema import STATEMENT
from omkd.shell.knowledge_history import UNCOMMITTED
from tests.transcript_builder import Transcript

DAY: Final = 86_400
START: Final = 1_770_904_800
"""The builder's START (2026-02-12 14:00 UTC)."""
CHANGE: Final = START + 20 * DAY


def git(repo: Path, *args: str, when: int | None = None, committed: int | None = None) -> None:
    """git in ``repo``; ``when`` the author date, ``committed`` the committer date (default: the same)."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}  # fmt: skip
    if when is not None:
        env["GIT_AUTHOR_DATE"] = f"@{when} +0000"
        env["GIT_COMMITTER_DATE"] = f"@{committed if committed is not None else when} +0000"
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def project(root: Path, name: str) -> Path:
    """A git project with a deploy skill and a CLAUDE.md, both committed long before the traces."""
    repo = root / name
    (repo / ".claude" / "skills" / "deploy").mkdir(parents=True)
    (repo / ".claude" / "skills" / "deploy" / "SKILL.md").write_text("# deploy\n")
    (repo / "CLAUDE.md").write_text("# instructions\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "first version", when=START - 100 * DAY)
    return repo


def sessions(repo: Path, transcripts: Path, plan: dict[int, str], skill: str | None = "deploy") -> None:
    """One transcript per day of ``plan`` (days after START): a segment per letter, an hour apart;
    ``m`` a Glob miss of docs/deploy-port.md, ``c`` a clean one."""
    for day, letters in plan.items():
        t = Transcript(cwd=str(repo), session_id=f"{repo.name}-{skill}-{day}")
        for n, kind in enumerate(letters):
            t.prompt(f"task {n}", at=day * DAY + n * 3600.0)
            if skill is not None:
                t.skill(skill)
            if kind == "m":
                t.glob_miss("docs/deploy-port.md")
            else:
                t.glob_hit("src/**/*.py")
        out = transcripts / f"{repo.name}-{skill}-{day}.jsonl"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(t.to_bytes())


def impact(*args: object) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["impact", *(str(a) for a in args), "--json", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = orjson.loads(result.stdout)
    return document


def test_a_skill_edited_on_a_known_day_improved_with_its_exact_bounds(tmp_path: Path) -> None:
    """16/20 segments gapped before the commit, 1/20 after; the commit's author date is the change
    (its committer date, 3 days later, is not)."""
    repo = project(tmp_path, "shop")
    traces = tmp_path / "projects"
    sessions(repo, traces, {18: "m" * 16 + "cccc", 21: "m" + "c" * 19})
    (repo / ".claude" / "skills" / "deploy" / "SKILL.md").write_text("# deploy\nThe port is 8443.\n")
    git(repo, "commit", "-q", "-am", "deploy: document the port", when=CHANGE, committed=CHANGE + 3 * DAY)
    document = impact(traces, "--home", tmp_path / "home")
    (result,) = document["results"]
    assert (result["skill"], result["change"]["at"], result["change"]["subjects"]) == (
        "deploy", "2026-03-04T14:00:00.000Z", ["deploy: document the port"],
    )  # fmt: skip
    assert result["change"]["files"] == [str(repo / ".claude" / "skills" / "deploy" / "SKILL.md")]
    assert result["change"]["projects"] == [str(repo)]
    gap_rate = result["verdicts"][0]
    assert (gap_rate["figure"], gap_rate["before"], gap_rate["after"], gap_rate["verdict"]) == (
        "gap_rate", 0.8, 0.05, "improved",
    )  # fmt: skip
    assert gap_rate["interval"] == pytest.approx([-0.9528125649081112, -0.2520672923449951], abs=1e-9)
    assert result["statement"] == document["statement"] == STATEMENT
    assert document["watermark"]["segments"] == 40
    assert "do not measure the completeness" in document["watermark"]["statement"]
    assert [(g["status"], g["before_count"]) for g in result["gaps"]] == [("recurring", 16)]


def test_claude_md_affects_every_skill_of_its_project_and_none_of_another(tmp_path: Path) -> None:
    shop, blog = project(tmp_path, "shop"), project(tmp_path, "blog")
    traces = tmp_path / "projects"
    for repo in (shop, blog):
        sessions(repo, traces, {17: "mmcccc", 22: "cccccc"})
        sessions(repo, traces, {19: "ccccc"}, skill=None)
    (shop / "CLAUDE.md").write_text("# instructions\nRun the tests first.\n")
    git(shop, "commit", "-q", "-am", "instructions: tests first", when=CHANGE)
    document = impact(traces, "--home", tmp_path / "home")
    assert sorted((r["skill"], r["change"]["projects"], r["before"]["segments"], r["after"]["segments"])
                  for r in document["results"]) == [
        ("deploy", [str(shop)], 6, 6),
        ("general", [str(shop)], 1, 0),  # a session of prompts outside any skill is one general segment
    ]  # fmt: skip
    assert document["watermark"]["segments"] == 2 * (12 + 1)  # both projects' segments were read


def test_an_uncommitted_edit_counts_by_its_mtime(tmp_path: Path) -> None:
    repo = project(tmp_path, "shop")
    traces = tmp_path / "projects"
    sessions(repo, traces, {17: "mmmmmc", 22: "cccccc"})
    skill = repo / ".claude" / "skills" / "deploy" / "SKILL.md"
    skill.write_text("# deploy\nnot committed yet\n")
    os.utime(skill, (CHANGE, CHANGE))
    (result,) = impact(traces, "--home", tmp_path / "home", "--skill", "deploy")["results"]
    assert (result["change"]["at"], result["change"]["commits"], result["change"]["subjects"]) == (
        "2026-03-04T14:00:00.000Z", [], [UNCOMMITTED],
    )  # fmt: skip
    assert [v["verdict"] for v in result["verdicts"]] == ["no evidence", "no evidence"]
    assert result["verdicts"][0]["interval"] == pytest.approx([-0.9979057323439706, 0.20951817377616572], abs=1e-9)


def test_markdown_carries_the_table_the_verdict_and_the_sentence(tmp_path: Path) -> None:
    repo = project(tmp_path, "shop")
    traces = tmp_path / "projects"
    sessions(repo, traces, {18: "m" * 16 + "cccc", 21: "m" + "c" * 19})
    (repo / ".claude" / "skills" / "deploy" / "SKILL.md").write_text("v2\n")
    git(repo, "commit", "-q", "-am", "deploy: document the port", when=CHANGE)
    out = tmp_path / "impact.md"
    result = CliRunner().invoke(main, ["impact", str(traces), "--home", str(tmp_path / "home"), "--markdown", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "| gap rate | 80.0 % (16/20) | 5.0 % (1/20) | −75.0 pts [−95.3, −25.2] | **improved** |" in text
    assert STATEMENT in text
    assert "do not measure the completeness of the knowledge base" in text
    assert result.output == text  # the terminal shows the same


def test_the_daemon_s_api_v1_impact_equals_omkd_impact_over_the_same_files(tmp_path: Path) -> None:
    import asyncio

    import aiohttp

    from omkd.testing import eventually, running
    from tests.test_in_process import caught_up, config_of

    shop, blog = project(tmp_path, "shop"), project(tmp_path, "blog")
    traces = tmp_path / "projects"
    sessions(shop, traces, {18: "m" * 16 + "cccc", 21: "m" + "c" * 19})
    sessions(blog, traces, {17: "mmcccc", 22: "cccccc"})
    (shop / ".claude" / "skills" / "deploy" / "SKILL.md").write_text("v2\n")
    git(shop, "commit", "-q", "-am", "deploy: document the port", when=CHANGE)
    (blog / "CLAUDE.md").write_text("v2\n")
    git(blog, "commit", "-q", "-am", "instructions", when=CHANGE)
    expected = impact(traces, "--home", tmp_path / "home")
    assert len(expected["results"]) == 2

    async def run() -> tuple[dict[str, Any], int]:
        async with running(config_of(tmp_path)) as daemon:
            await eventually(lambda: caught_up(daemon), "the first reading")
            base = f"http://127.0.0.1:{daemon.bound_port}/api/v1/impact"
            async with aiohttp.ClientSession() as session:
                async with session.get(base) as response:
                    document: dict[str, Any] = await response.json()
                async with session.get(base, params={"span": "0d"}) as refused:
                    return document, refused.status

    document, refused = asyncio.run(run())
    assert document == expected
    assert refused == 400


def test_scan_markdown_lists_the_changes_inside_the_scanned_span(tmp_path: Path) -> None:
    repo = project(tmp_path, "shop")
    traces = tmp_path / "projects"
    sessions(repo, traces, {18: "m" * 16 + "cccc", 21: "m" + "c" * 19})
    (repo / ".claude" / "skills" / "deploy" / "SKILL.md").write_text("v2\n")
    git(repo, "commit", "-q", "-am", "deploy: document the port", when=CHANGE)
    home = str(tmp_path / "home")
    result = CliRunner().invoke(main, ["scan", str(traces), "--home", home, "--markdown", "-"])
    assert result.exit_code == 0, result.output
    assert "deploy: 2026-03-04 14:00 UTC" in result.stdout
    assert "| gap rate | 80.0 % (16/20) | 5.0 % (1/20) | −75.0 pts [−95.3, −25.2] | **improved** |" in result.stdout
    assert STATEMENT in result.stdout
    after_only = CliRunner().invoke(
        main, ["scan", str(traces), "--home", home, "--markdown", "-", "--since", "2026-03-05T00:00:00Z"]
    )
    assert after_only.exit_code == 0, after_only.output
    assert "deploy: 2026-03-04" not in after_only.stdout  # the change is before the scanned span


def test_the_config_s_impact_span_and_merge_within_are_used_and_span_overrides(tmp_path: Path) -> None:
    """``[impact]`` sets the merge distance (10 minutes: two commits 30 minutes apart are two
    changes, one otherwise) and the span (1 day: the day-18 segments are outside the first
    change's before side, which is then left out); ``--span`` overrides the config's span; a bad
    value is refused naming its key."""
    repo = project(tmp_path, "shop")
    traces = tmp_path / "projects"
    sessions(repo, traces, {18: "m" * 16 + "cccc", 20: "m" + "c" * 19})
    skill = repo / ".claude" / "skills" / "deploy" / "SKILL.md"
    for n, when in enumerate((CHANGE - 1800, CHANGE)):
        skill.write_text(f"v{n}\n")
        git(repo, "commit", "-q", "-am", f"deploy: step {n}", when=when)
    home = tmp_path / "home"
    merged = impact(traces, "--home", home)["results"]
    assert [(len(r["change"]["commits"]), r["before"]["segments"], r["after"]["segments"]) for r in merged] == [
        (2, 20, 20)
    ]
    config = tmp_path / "omkd.toml"
    config.write_text('[impact]\nspan = "1d"\nmerge_within = "10m"\n')
    document = impact(traces, "--home", home, "--config", config)
    assert (document["span_seconds"], document["merge_within_seconds"]) == (DAY, 600)
    assert [(r["before"]["segments"], r["after"]["segments"]) for r in document["results"]] == [(0, 20)]
    widened = impact(traces, "--home", home, "--config", config, "--span", "14d")
    assert [(r["before"]["segments"], r["after"]["segments"]) for r in widened["results"]] == [(20, 0), (0, 20)]
    config.write_text('[impact]\nspan = "0d"\nmerge_within = "soon"\n')
    refused = CliRunner().invoke(main, ["impact", str(traces), "--home", str(home), "--config", str(config)])
    assert refused.exit_code == 2
    assert [key for key in ("impact.span", "impact.merge_within") if key in refused.stderr] == [
        "impact.span", "impact.merge_within",
    ], refused.stderr  # fmt: skip


def test_the_daemon_s_api_v1_impact_reads_the_config_s_impact_keys(tmp_path: Path) -> None:
    """The daemon's ``[impact]`` span and merge distance are ``/api/v1/impact``'s, as ``omkd
    impact --config`` reads them; a ``span`` parameter overrides the span as ``--span`` does."""
    import asyncio

    import aiohttp

    from omkd.config import load_config
    from omkd.testing import eventually, running
    from tests.test_in_process import caught_up, config_of

    repo = project(tmp_path, "shop")
    traces = tmp_path / "projects"
    sessions(repo, traces, {18: "m" * 16 + "cccc", 20: "m" + "c" * 19})
    skill = repo / ".claude" / "skills" / "deploy" / "SKILL.md"
    for n, when in enumerate((CHANGE - 1800, CHANGE)):
        skill.write_text(f"v{n}\n")
        git(repo, "commit", "-q", "-am", f"deploy: step {n}", when=when)
    toml = tmp_path / "omkd.toml"
    toml.write_text('[impact]\nspan = "1d"\nmerge_within = "10m"\n')
    home = tmp_path / "home"
    expected = [impact(traces, "--home", home, "--config", toml, *span) for span in ((), ("--span", "14d"))]
    config = config_of(tmp_path).model_copy(update={"impact": load_config(toml).impact})

    async def run() -> list[dict[str, Any]]:
        async with running(config) as daemon:
            await eventually(lambda: caught_up(daemon), "the first reading")
            base = f"http://127.0.0.1:{daemon.bound_port}/api/v1/impact"
            documents = []
            async with aiohttp.ClientSession() as session:
                for params in ({}, {"span": "14d"}):
                    async with session.get(base, params=params) as response:
                        documents.append(await response.json())
            return documents

    served = asyncio.run(run())
    assert [(d["span_seconds"], d["merge_within_seconds"], len(d["results"])) for d in served] == [
        (DAY, 600, 1), (14 * DAY, 600, 2),
    ]  # fmt: skip
    assert served == expected


def test_the_readme_documents_every_field_of_the_json(tmp_path: Path) -> None:
    """The README's ``omkd impact --json`` section: its table names exactly the top-level keys
    printed, and its text names every field of every record the output is made of."""
    import dataclasses
    import re

    from omkd.engine.impact import schema

    readme = (Path(__file__).parent.parent / "README.md").read_text()
    section = readme[readme.index("### JSON (`omkd impact --json`") :]
    section = section[: section.index("\n## ")]
    rows = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    table = {name for row in rows for name in re.findall(r"`([a-z_]+)`", row)}
    named = set(re.findall(r"`([a-z_]+)`", section))
    repo = project(tmp_path, "shop")
    traces = tmp_path / "projects"
    sessions(repo, traces, {18: "mmcccc", 21: "cccccc"})
    (repo / "CLAUDE.md").write_text("v2\n")
    git(repo, "commit", "-q", "-am", "instructions", when=CHANGE)
    document = impact(traces, "--home", tmp_path / "home")
    assert set(document) == table
    records = (schema.ImpactReport, schema.ImpactResult, schema.ChangeInfo, schema.Side, schema.Verdict,
               schema.ModelMix, schema.PatternFate, schema.PatternSeen)  # fmt: skip
    fields = {f.name for record in records for f in dataclasses.fields(record)}
    assert fields - named == set()
    (result,) = document["results"]
    printed = {*result, *result["change"], *result["before"], *result["verdicts"][0], *result["model_mix"]}
    assert printed | {*result["gaps"][0]} <= fields


def test_a_pattern_too_early_to_tell_says_the_segments_it_needs_in_words() -> None:
    """``needs 1 segment after`` and ``needs 6 segments after`` (the pattern's place before)."""
    from omkd.cli.impact_markdown import result_section
    from tests.test_impact_engine import _before_after, _one

    one, six = _one(_before_after("mcccc", "")), _one(_before_after("cccccm", "ccc"))
    assert "- `docs/deploy-port.md`: too early to tell (1 before; needs 1 segment after)" in result_section(one)
    assert "- `docs/deploy-port.md`: too early to tell (1 before; needs 6 segments after)" in result_section(six)


def test_the_html_effect_says_a_recurring_pattern_s_count_and_when_it_was_last_seen() -> None:
    """Spec §9.6: ``recurring``, with count and last seen — on the HTML page as in the Markdown
    (the port pattern missed once before the change and once after, on 2026-03-05 at 16:00)."""
    from omkd.render.impact_html import effect
    from tests.test_impact_engine import _before_after, _one

    html = effect(_one(_before_after("mcccc", "ccmcc")), None)
    assert "<code>docs/deploy-port.md</code>: recurring (1 before, 1 after, last seen 2026-03-05 16:00 UTC)" in html


def test_the_markdown_watermark_names_the_trace_roots_read(tmp_path: Path) -> None:
    """Spec §1: the watermark is the trace roots, the window, the sessions and segments, the
    fingerprint and the sentence; ``omkd impact``'s text (the terminal's, ``--markdown``'s) names
    the roots as its JSON does."""
    from omkd.cli.markdown import text

    repo = project(tmp_path, "shop")
    traces = tmp_path / "projects"
    sessions(repo, traces, {18: "mmcccc", 21: "cccccc"})
    (repo / "CLAUDE.md").write_text("v2\n")
    git(repo, "commit", "-q", "-am", "instructions", when=CHANGE)
    result = CliRunner().invoke(main, ["impact", str(traces), "--home", str(tmp_path / "home"), "--markdown", "-"])
    assert result.exit_code == 0, result.output
    (watermark,) = [line for line in result.stdout.splitlines() if line.startswith("<sub>")]
    assert f"roots {text(str(traces))}" in watermark  # escaped as every path the Markdown shows
    assert "12 segments, 2 sessions, 2026-03-02 14:00 UTC to 2026-03-05 19:00 UTC" in watermark
    assert watermark.endswith("do not measure the completeness of the knowledge base.</sub>")


def test_codex_and_gemini_knowledge_files_are_changes_of_their_projects_skills(tmp_path: Path) -> None:
    """Spec §9.1/§9.2 for the other agents: a commit to ``.agents/skills/deploy/`` affects Codex's
    deploy skill, one to ``AGENTS.md`` every skill and ``general`` of its project, one to a second
    project's ``GEMINI.md`` Gemini's ``general`` there (a Gemini chat names its project in
    ``directories``). The sessions are on 2026-04-08 at 13:27 (``agent_lines``); the skill commit
    two days before, the instruction commits a day after."""
    from datetime import datetime

    from tests.agent_lines import T0, GeminiChat, Rollout

    t0 = int(datetime.fromisoformat(T0.replace("Z", "+00:00")).timestamp())
    shop, blog = tmp_path / "shop", tmp_path / "blog"
    skill = shop / ".agents" / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("# deploy\n")
    blog.mkdir()
    for repo, name in ((shop, "AGENTS.md"), (blog, "GEMINI.md")):
        (repo / name).write_text("# instructions\n")
        git(repo, "init", "-q")
        git(repo, "add", ".")
        git(repo, "commit", "-q", "-m", "first version", when=t0 - 100 * DAY)
    skill.write_text("# deploy\nThe port is 8443.\n")
    git(shop, "commit", "-q", "-am", "deploy: the port", when=t0 - 2 * DAY)
    for repo, name in ((shop, "AGENTS.md"), (blog, "GEMINI.md")):
        (repo / name).write_text("# instructions\nRun make first.\n")
        git(repo, "commit", "-q", "-am", f"{name}: make first", when=t0 + DAY)
    rollout = Rollout(cwd=str(shop))
    rollout.prompt("$deploy ship it")
    rollout.skill("deploy", str(skill))
    rollout.exec("make deploy", "deployed\n")
    rollout.say("Deployed.")
    rollout.prompt("thanks, now list the files")
    rollout.exec("ls", "Makefile\n")
    rollout.say("Done.")
    chat = GeminiChat()
    chat.jsonl[0]["directories"] = [str(blog)]
    chat.prompt("what does this project do?")
    chat.reply("It is a blog.")
    traces = tmp_path / "traces"
    day = traces / "codex" / "2026" / "04" / "08"
    day.mkdir(parents=True)
    (day / "rollout-2026-04-08T13-27-20-019d6d46.jsonl").write_bytes(rollout.data())
    (traces / "gemini" / "blog" / "chats").mkdir(parents=True)
    (traces / "gemini" / "blog" / "chats" / "session-2026-04-08T13-27-55b29702.jsonl").write_bytes(chat.data())
    document = impact(traces, "--home", tmp_path / "home")
    assert sorted(
        (r["agent"], r["skill"], r["change"]["subjects"], r["change"]["projects"], r["before"]["segments"],
         r["after"]["segments"])
        for r in document["results"]
    ) == [
        ("codex", "deploy", ["AGENTS.md: make first"], [str(shop)], 1, 0),
        ("codex", "deploy", ["deploy: the port"], [str(shop)], 0, 1),
        ("codex", "general", ["AGENTS.md: make first"], [str(shop)], 1, 0),
        ("gemini", "general", ["GEMINI.md: make first"], [str(blog)], 1, 0),
    ]  # fmt: skip


def test_an_instruction_file_of_any_agent_affects_the_project_s_skills_whichever_agents_were_read(
    tmp_path: Path,
) -> None:
    """Spec §9.1/§9.2: a change of an instruction file (``CLAUDE.md``, ``AGENTS.md``, ``GEMINI.md``)
    affects every skill whose segments ran in the project. A commit to ``AGENTS.md`` is a change for
    Claude Code's deploy skill there, and the same one whether or not a Codex session of the
    project was read beside the Claude Code ones (a row's results never depend on other agents'
    traces)."""
    from tests.agent_lines import Rollout

    repo = project(tmp_path, "shop")
    (repo / "AGENTS.md").write_text("# instructions\n")
    git(repo, "add", "AGENTS.md")
    git(repo, "commit", "-q", "-m", "AGENTS.md", when=START - 100 * DAY)
    traces = tmp_path / "projects"
    sessions(repo, traces, {17: "mmcccc", 22: "cccccc"})
    (repo / "AGENTS.md").write_text("# instructions\nRun make first.\n")
    git(repo, "commit", "-q", "-am", "instructions: make first", when=CHANGE)
    home = tmp_path / "home"

    def claude_rows(*paths: Path) -> list[tuple[str, list[str], int, int]]:
        results = impact(*paths, "--home", home, "--agent", "claude_code")["results"]
        return [(r["skill"], r["change"]["subjects"], r["before"]["segments"], r["after"]["segments"]) for r in results]

    codex = tmp_path / "codex" / "2026" / "04" / "08"
    codex.mkdir(parents=True)
    rollout = Rollout(cwd=str(repo))
    rollout.prompt("list the files")
    rollout.exec("ls", "Makefile\n")
    rollout.say("Done.")
    (codex / "rollout-2026-04-08T13-27-20-019d6d46.jsonl").write_bytes(rollout.data())
    expected = [("deploy", ["instructions: make first"], 6, 6)]
    assert claude_rows(traces, tmp_path / "codex") == expected
    assert claude_rows(traces) == expected


def test_a_file_in_an_agent_s_skill_folder_is_that_skill_s_and_every_other_knowledge_file_no_one_s() -> None:
    """Spec §9.2: ``…/skills/<name>/**`` of every agent, project and user level, is that skill's
    own folder; instruction files and ``.claude/knowledge/**`` (even a folder named after a skill)
    are no skill's: they affect every skill."""
    from omkd.shell.knowledge import skill_folder

    owned = {
        "/p/shop/.claude/skills/deploy/SKILL.md": "deploy",
        "/p/shop/.claude/skills/deploy/references/ports.md": "deploy",
        "/p/shop/.agents/skills/deploy/SKILL.md": "deploy",
        "/p/shop/.gemini/skills/deploy/SKILL.md": "deploy",
        "/home/u/.claude/skills/lint/SKILL.md": "lint",
        "/home/u/.codex/skills/lint/SKILL.md": "lint",
        "/home/u/.agents/skills/lint/SKILL.md": "lint",
        "/home/u/.gemini/skills/lint/SKILL.md": "lint",
        "/p/shop/CLAUDE.md": None,
        "/p/shop/AGENTS.md": None,
        "/p/shop/api/GEMINI.md": None,
        "/p/shop/.claude/knowledge/deploy/ports.md": None,
        "/home/u/.claude/CLAUDE.md": None,
    }
    assert {path: skill_folder(path) for path in owned} == owned
