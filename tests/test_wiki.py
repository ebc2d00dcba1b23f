"""The gap wiki (``omkd wiki``): merged entries, kept human text, determinism, safety, lint.

Transcripts are hand-made (``transcript_builder``) and every expected figure below is written
by hand from the recipe; the real fixtures are only required to produce a wiki without error.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from omkd.cli import main
from omkd.engine.wiki import entries, lint, pages, slugs, state_plain
from omkd.engine.wiki.entries import Change, Occurrence
from omkd.shell import wiki
from tests.transcript_builder import Transcript

NOW = 1_767_225_600.0  # 2026-01-01T00:00:00Z: only ever written into log.md


def _run(*args: str | Path) -> Result:
    return CliRunner().invoke(main, ["wiki", *(str(a) for a in args), "--home", "/nonexistent"])


def _session(path: Path, misses: list[tuple[str, str]], session: str = "s-1") -> None:
    """One session: a prompt, then for each (skill, pattern) a segment of that skill with a
    Glob miss of the pattern."""
    t = Transcript(session_id=session)
    for n, (skill, pattern) in enumerate(misses):
        t.prompt(f"task {n}")
        t.skill(skill)
        t.glob_miss(pattern)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(t.to_bytes())


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _occurrence(row: str, pattern: str, n: int, timestamp: str = "2026-01-01T00:00:00.000Z") -> Occurrence:
    return Occurrence(row, pattern, "Glob", f"id-{row}-{pattern}-{n}", f"s{n}", "/t.jsonl", n, timestamp, "ctx")


# --- merge: the same missing thing is one entry ----------------------------------------------


def test_a_path_below_the_project_and_the_same_path_relative_are_one_entry(tmp_path: Path) -> None:
    """Glob ``docs/deploy.md`` and Read ``/home/dev/shop/docs/deploy.md`` (cwd ``/home/dev/shop``)
    are one entry seen 2 times with both tools; ``docs/other.md`` is a second entry."""
    t = Transcript()
    t.prompt("deploy it")
    t.skill("deploy")
    t.glob_miss("docs/deploy.md")
    t.read_missing("/home/dev/shop/docs/deploy.md")
    t.glob_miss("docs/other.md")
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "a.jsonl").write_bytes(t.to_bytes())
    result = _run(tmp_path / "wiki", tmp_path / "traces")
    assert result.exit_code == 0, result.output
    state = wiki.load_state(wiki.WikiDirectory(tmp_path / "wiki"))
    deploy = state.skills["deploy"].entries
    assert sorted(deploy) == ["docs/deploy.md", "docs/other.md"]
    assert deploy["docs/deploy.md"].count == 2
    assert deploy["docs/deploy.md"].tools == ("Glob", "Read")
    assert deploy["docs/deploy.md"].sessions == (t.session_id,)
    page = (tmp_path / "wiki" / "skills" / "deploy.md").read_text()
    assert "## Missing (2)" in page  # never found by the agent: the knowledge is missing
    assert "### `docs/deploy.md`" in page
    assert "- seen: 2 times in 1 session" in page
    assert "- state: open" in page
    assert f"{tmp_path / 'traces' / 'a.jsonl'}:" in page  # an example to open, file:line


def test_a_skill_whose_gaps_are_all_hedging_has_its_page_with_the_sentences(tmp_path: Path) -> None:
    """``release`` only hedges (two sentences in two segments, then a search that finds its file):
    it gets a page, listed in the index, with one hedging entry said 2 times and both sentences;
    it makes no topic page, and the wiki lints clean."""
    t = Transcript()
    sentences = ["I'm not sure which config file applies here.", "I'm not sure whether the tag was pushed."]
    for n, sentence in enumerate(sentences):
        t.prompt(f"release step {n}")
        t.skill("release")
        t.say(sentence)
        t.glob_hit("src/**/*.py")
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "a.jsonl").write_bytes(t.to_bytes())
    assert _run(tmp_path / "wiki", tmp_path / "traces").exit_code == 0
    page = (tmp_path / "wiki" / "skills" / "release.md").read_text()
    assert "## Hedging: what the agents said they were unsure of" in page
    assert "- said: 2 times in 1 session" in page
    assert all(f"`{sentence}`" in page for sentence in sentences), page
    index = (tmp_path / "wiki" / "index.md").read_text()
    assert "[`release`](skills/release.md) — 1 entry: 2 sentences of doubt" in index
    assert not (tmp_path / "wiki" / "topics").exists()
    linted = _run(tmp_path / "wiki", "--lint")
    assert linted.exit_code == 0, linted.output


def test_running_twice_over_the_same_traces_changes_no_byte(tmp_path: Path) -> None:
    """The second run over the same traces writes nothing: every file, log.md included, is
    byte-identical, and it says nothing changed."""
    _session(tmp_path / "traces" / "a.jsonl", [("deploy", "docs/a.md"), ("audit", "docs/a.md")])
    assert _run(tmp_path / "wiki", tmp_path / "traces").exit_code == 0
    first = _tree(tmp_path / "wiki")
    second = _run(tmp_path / "wiki", tmp_path / "traces")
    assert second.exit_code == 0
    assert "0 new entries, 0 updated, 0 pages written (nothing changed)" in second.output
    assert _tree(tmp_path / "wiki") == first
    # two skills missed docs/a.md: one topic page, linked from both skill pages and the index
    assert sorted(p for p in first if p.endswith(".md")) == [
        "index.md", "log.md", "skills/audit.md", "skills/deploy.md", f"topics/{slugs.slug('docs/a.md')}.md",
    ]  # fmt: skip
    assert first["log.md"].decode().count("\n- ") == 1


def test_a_new_occurrence_updates_exactly_one_entry(tmp_path: Path) -> None:
    """A second session missing ``docs/a.md`` again under ``deploy``: that entry goes from 1 to 2
    times in 2 sessions; the other entries (``docs/b.md``, and ``audit``'s) stay as they were,
    and no entry is added."""
    _session(tmp_path / "traces" / "a.jsonl", [("deploy", "docs/a.md"), ("deploy", "docs/b.md"), ("audit", "x")])
    assert _run(tmp_path / "wiki", tmp_path / "traces").exit_code == 0
    before = wiki.load_state(wiki.WikiDirectory(tmp_path / "wiki"))
    _session(tmp_path / "traces" / "b.jsonl", [("deploy", "docs/a.md")], session="s-2")
    result = _run(tmp_path / "wiki", tmp_path / "traces")
    assert "0 new entries, 1 updated" in result.output
    after = wiki.load_state(wiki.WikiDirectory(tmp_path / "wiki"))
    changed = [
        (row, pattern)
        for row, skill in after.skills.items()
        for pattern, entry in skill.entries.items()
        if before.skills[row].entries.get(pattern) != entry
    ]
    assert changed == [("deploy", "docs/a.md")]
    entry = after.skills["deploy"].entries["docs/a.md"]
    assert (entry.count, entry.sessions) == (2, ("s-1", "s-2"))
    assert sum(len(s.entries) for s in after.skills.values()) == 3


def test_merges_in_either_order_give_the_same_state() -> None:
    """Merging A then B, B then A, or A, B and A again gives one state: counts are set sizes."""
    a = [_occurrence("deploy", "docs/a.md", 1, "2026-01-01T00:00:01.000Z")]
    b = [_occurrence("deploy", "docs/a.md", 2, "2026-01-01T00:00:02.000Z"), _occurrence("x", "y", 3)]
    empty = entries.WikiState()
    ab = entries.merge(entries.merge(empty, a, {}).state, b, {}).state
    ba = entries.merge(entries.merge(empty, b, {}).state, a, {}).state
    aba = entries.merge(ab, a, {})
    assert ab == ba == aba.state
    assert (aba.new, aba.updated) == (0, 0)
    entry = ab.skills["deploy"].entries["docs/a.md"]
    assert (entry.count, entry.first_seen) == (2, "2026-01-01T00:00:01.000Z")
    assert entry.last_seen == "2026-01-01T00:00:02.000Z"


def test_an_entry_is_quiet_since_the_first_knowledge_change_after_its_last_occurrence() -> None:
    """Last seen 10:00; changes at 09:00, 11:00 and 12:00: not seen since the 11:00 one. Seen again at
    11:30: recurring after the 11:00 change (seen before and after it), until a merge knowing the
    12:00 change makes it not seen since that one."""
    changes = [
        Change("2026-01-01T09:00:00Z", "aaaaaaa", "before"),
        Change("2026-01-01T11:00:00Z", "bbbbbbb", "document the deploy"),
        Change("2026-01-01T12:00:00Z", "ccccccc", "later"),
    ]
    first = entries.merge(entries.WikiState(), [_occurrence("d", "p", 1, "2026-01-01T10:00:00.000Z")], {"d": changes})
    entry = first.state.skills["d"].entries["p"]
    assert entry.quiet_since == changes[1]
    assert pages.state_of(entry) == "not seen since commit `bbbbbbb` `document the deploy` (2026-01-01)"
    again = entries.merge(first.state, [_occurrence("d", "p", 2, "2026-01-01T11:30:00.000Z")], {"d": changes[:2]})
    assert pages.state_of(again.state.skills["d"].entries["p"]) == (
        "recurring after commit `bbbbbbb` `document the deploy` (2026-01-01)"
    )
    later = entries.merge(again.state, [], {"d": changes})
    assert later.state.skills["d"].entries["p"].quiet_since == changes[2]


def test_a_knowledge_commit_after_the_last_miss_makes_the_entry_quiet(tmp_path: Path) -> None:
    """The project's CLAUDE.md committed (git) after the session's misses (2026-02-12): the page
    says ``not seen since commit <hash> <subject>``."""
    project = tmp_path / "shop"
    project.mkdir()
    (project / "CLAUDE.md").write_text("# shop\n")
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-03-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-03-01T00:00:00Z"}
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], check=True, env=env)
    subprocess.run([*git, "add", "CLAUDE.md"], check=True, env=env)
    subprocess.run([*git, "commit", "-q", "-m", "Say where the deploy docs are"], check=True, env=env)
    short = subprocess.run([*git, "log", "--format=%h"], check=True, env=env, capture_output=True, text=True)
    t = Transcript(cwd=str(project))
    t.prompt("deploy")
    t.skill("deploy")
    t.glob_miss("docs/deploy.md")
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "a.jsonl").write_bytes(t.to_bytes())
    assert _run(tmp_path / "wiki", tmp_path / "traces").exit_code == 0
    page = (tmp_path / "wiki" / "skills" / "deploy.md").read_text()
    expected = f"- state: not seen since commit `{short.stdout.strip()}` `Say where the deploy docs are` (2026-03-01)"
    assert expected in page
    assert "(0 open)" in (tmp_path / "wiki" / "index.md").read_text()


# --- what a person wrote is kept ---------------------------------------------------------------


def test_a_persons_own_sections_survive_an_update(tmp_path: Path) -> None:
    """Notes above and below the generated part of a skill page and the index stay byte for byte
    while the part between the markers is replaced; a page a person wrote without markers keeps
    all its text and gets the generated part appended."""
    _session(tmp_path / "traces" / "a.jsonl", [("deploy", "docs/a.md"), ("audit", "docs/r.md")])
    assert _run(tmp_path / "wiki", tmp_path / "traces").exit_code == 0
    page = tmp_path / "wiki" / "skills" / "deploy.md"
    above, below = "Owner: ops team. Read me first.\n\n", "\n## Our notes\n\nThe deploy docs move to /ops soon.\n"
    page.write_text(above + page.read_text() + below)
    review = tmp_path / "wiki" / "skills" / "audit.md"
    review.write_text("# Review\n\nHand-written, no markers.\n")
    index = tmp_path / "wiki" / "index.md"
    index.write_text("Welcome.\n" + index.read_text())
    _session(tmp_path / "traces" / "b.jsonl", [("deploy", "docs/b.md")], session="s-2")
    assert _run(tmp_path / "wiki", tmp_path / "traces").exit_code == 0
    text = page.read_text()
    assert text.startswith(above + pages.BEGIN + "\n")
    assert text.endswith(pages.END + "\n" + below)
    assert "### `docs/b.md`" in text  # the new entry is in the generated part
    assert review.read_text().startswith("# Review\n\nHand-written, no markers.\n\n" + pages.BEGIN + "\n")
    assert index.read_text().startswith("Welcome.\n" + pages.BEGIN)


def test_a_page_with_damaged_markers_is_left_alone_and_named(tmp_path: Path) -> None:
    """Two BEGIN lines: the page is not touched, the run says so, lint names it."""
    _session(tmp_path / "traces" / "a.jsonl", [("deploy", "docs/a.md")])
    assert _run(tmp_path / "wiki", tmp_path / "traces").exit_code == 0
    page = tmp_path / "wiki" / "skills" / "deploy.md"
    damaged = pages.BEGIN + "\nmine\n" + page.read_text()
    page.write_text(damaged)
    _session(tmp_path / "traces" / "b.jsonl", [("deploy", "docs/b.md")], session="s-2")
    result = _run(tmp_path / "wiki", tmp_path / "traces")
    assert "left skills/deploy.md alone: its markers are damaged" in result.output
    assert page.read_text() == damaged


# --- safety --------------------------------------------------------------------------------------

HOSTILE = ["../../etc/x", "/abs", "a/b", "nul\0byte", "x" * 300, "🔥 emoji 🚀", "..", ".", "", "UPPER", "a\nb"]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_slug_always_fits_the_whitelist(name: str) -> None:
    """Whatever the name, its slug matches ``^[a-z0-9][a-z0-9._-]{0,80}$`` (so no ``/``, no NUL)."""
    made = slugs.slug(name)
    assert slugs.SLUG.match(made), made
    assert made != name


def test_hostile_skill_names_and_patterns_never_write_outside_the_wiki(tmp_path: Path) -> None:
    """Skill rows and patterns named ``../../etc/x``, ``/abs``, ``a/b``, with a NUL, 300 characters
    or emoji: every file written is inside DIR, under skills/ or topics/ with a whitelisted name;
    the patterns all missed by two skills make one topic page each."""
    root = tmp_path / "deep" / "er" / "wiki"
    found = [_occurrence(name, pattern, n) for n, name in enumerate(HOSTILE) for pattern in HOSTILE[:6]]
    done = wiki.update(root, found, {}, NOW)
    assert done.new == len(HOSTILE) * 6
    outside = [p for p in tmp_path.rglob("*") if not p.is_relative_to(root) and p.is_file()]
    assert outside == []
    written = _tree(root)
    md = sorted(p for p in written if p.endswith(".md") and p not in ("index.md", "log.md"))
    assert len([p for p in md if p.startswith("skills/")]) == len(HOSTILE)
    assert len([p for p in md if p.startswith("topics/")]) == 6
    for path in md:
        folder, name = path.split("/")
        assert folder in ("skills", "topics")
        assert slugs.SLUG.match(name.removesuffix(".md")), path
    assert wiki.lint_wiki(root) == [
        lint.Problem(p, lint.MISSING_EXAMPLE, "/t.jsonl") for p in md if p.startswith("skills/")
    ]


def test_a_symlinked_folder_leading_outside_is_refused(tmp_path: Path) -> None:
    """``skills`` a symlink to a directory outside DIR: the update fails naming it; nothing is
    written there."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "wiki"
    root.mkdir()
    (root / "skills").symlink_to(elsewhere)
    with pytest.raises(wiki.WikiError, match="resolves outside the wiki directory"):
        wiki.update(root, [_occurrence("deploy", "p", 1)], {}, NOW)
    assert list(elsewhere.iterdir()) == []


_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from omkd.engine.wiki.entries import Occurrence
    from omkd.shell import wiki

    root, name, times = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    for n in range(times):
        found = [Occurrence("deploy", "docs/a.md", "Glob", f"{name}-{n}", f"{name}-{n}", "/t.jsonl", n,
                            f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}.000Z", "ctx")]
        wiki.update(root, found, {}, 1767225600.0 + n, name)
    """
)


@pytest.mark.slow
def test_two_writer_processes_racing_never_lose_an_update(tmp_path: Path) -> None:
    """Two processes each merge 40 different new occurrences of one entry, one update at a time,
    at once: the entry ends at 80 occurrences in 80 sessions and log.md has 80 lines."""
    root = tmp_path / "wiki"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(root), name, "40"], env=env) for name in ("one", "two")
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    entry = wiki.load_state(wiki.WikiDirectory(root)).skills["deploy"].entries["docs/a.md"]
    assert (entry.count, len(entry.sessions)) == (80, 80)
    assert (root / "log.md").read_text().count("\n- ") == 80
    assert "- seen: 80 times in 80 sessions" in (root / "skills" / "deploy.md").read_text()


# --- lint -----------------------------------------------------------------------------------------


def test_lint_finds_each_kind_of_problem(tmp_path: Path) -> None:
    """A clean wiki lints clean (exit 0); then one problem of each kind is made by hand and
    ``--lint`` lists each of them and exits 1."""
    traces = tmp_path / "traces"
    _session(traces / "a.jsonl", [("deploy", "docs/a.md"), ("audit", "docs/a.md"), ("ship", "s.md")])
    _session(traces / "b.jsonl", [("gone", "g.md")], session="s-2")
    root = tmp_path / "wiki"
    assert _run(root, traces).exit_code == 0
    clean = _run(root, "--lint")
    assert (clean.exit_code, clean.output) == (0, f"0 problems in {root}\n")
    (traces / "b.jsonl").unlink()  # an example's transcript file no longer exists
    (root / "skills" / "audit.md").unlink()  # the topic links to it: broken; the index lists it
    (root / "skills" / "extra.md").write_text(pages.splice(None, "# Skill `extra`\n\n## `x`"))  # orphan
    ship = root / "skills" / "ship.md"
    ship.write_text(pages.splice(ship.read_text(), "# Skill `ship`\n\nnothing left"))  # no entries
    index = root / "index.md"
    index.write_text(index.read_text().replace("[`deploy`](skills/deploy.md) — 1", "[`deploy`](skills/deploy.md) — 7"))
    result = _run(root, "--lint")
    assert result.exit_code == 1
    topic = f"topics/{slugs.slug('docs/a.md')}.md"
    # sorted by page, then kind; ship.md has no entry left, so its index line (1) is wrong too
    assert result.output.splitlines() == [
        "index.md: broken link: skills/audit.md (no such page)",
        "index.md: index line does not match its page: skills/audit.md: no such page",
        "index.md: index line does not match its page: skills/deploy.md: the index says "
        "'7 thing not found: 0 hard to find, 1 missing (1 open)', the page has 1",
        "index.md: index line does not match its page: skills/ship.md: the index says "
        "'1 thing not found: 0 hard to find, 1 missing (1 open)', the page has 0",
        "skills/extra.md: orphan page: not linked from index.md",
        f"skills/gone.md: example file no longer exists: {traces / 'b.jsonl'}",
        "skills/ship.md: page without entries: the generated part lists no entry",
        f"{topic}: broken link: ../skills/audit.md (no such page)",
        f"8 problems in {root}",
    ]


# --- the real fixtures -----------------------------------------------------------------------------


@pytest.mark.slow
def test_the_real_fixtures_make_a_wiki_without_error(real_fixtures: Path, tmp_path: Path) -> None:
    """Every real transcript read: the wiki is written, lints clean, and a second run changes
    nothing."""
    root = tmp_path / "wiki"
    first = _run(root, real_fixtures)
    assert first.exit_code == 0, first.output
    assert (root / "index.md").is_file()
    assert list((root / "skills").glob("*.md"))
    written = _tree(root)
    assert _run(root, "--lint").exit_code == 0
    assert "(nothing changed)" in _run(root, real_fixtures).output
    assert _tree(root) == written


def test_the_wiki_of_a_running_daemon_is_the_one_of_its_transcripts(tmp_path: Path) -> None:
    """``--url`` reads a real daemon's window: the same entries, counts and sessions as the wiki
    made from the same transcripts by path."""
    from omkd.testing import DaemonProcess
    from tests.live_helpers import omkd as omkd_process
    from tests.live_helpers import wait_lines

    traces = tmp_path / "traces"
    _session(traces / "a.jsonl", [("deploy", "docs/a.md"), ("audit", "docs/a.md"), ("deploy", "docs/b.md")])
    _session(traces / "b.jsonl", [("deploy", "docs/a.md")], session="s-2")
    hedged = Transcript(session_id="s-3")  # a skill that only hedges: the daemon gives its sentence too
    hedged.prompt("cut a release")
    hedged.skill("release")
    hedged.say("I'm not sure which config file applies here.")
    hedged.glob_hit("src/**/*.py")
    (traces / "c.jsonl").write_bytes(hedged.to_bytes())
    assert _run(tmp_path / "by-path", traces).exit_code == 0
    lines = sum(p.read_bytes().count(b"\n") for p in traces.glob("*.jsonl"))
    (tmp_path / "daemon").mkdir()
    with DaemonProcess(tmp_path / "daemon", [traces]) as daemon:
        daemon.start()
        wait_lines(daemon, lines)
        done = omkd_process("wiki", tmp_path / "by-url", "--url", f"http://127.0.0.1:{daemon.port}",
                            "--home", "/nonexistent")  # fmt: skip
        assert daemon.stop() == 0
    assert done.returncode == 0, done.stderr

    def entries_of(directory: Path) -> dict[str, list[tuple[str, int, tuple[str, ...]]]]:
        state = wiki.load_state(wiki.WikiDirectory(directory))
        return {
            skill: sorted((key, e.count, e.sessions) for key, e in kept.entries.items())
            for skill, kept in state.skills.items()
        }

    by_path = entries_of(tmp_path / "by-path")
    assert by_path == entries_of(tmp_path / "by-url")
    assert by_path["deploy"] == [("docs/a.md", 2, ("s-1", "s-2")), ("docs/b.md", 1, ("s-1",))]
    assert by_path["release"] == [(entries.said_key("hedging"), 1, ("s-3",))]


# --- the optional LLM prose ----------------------------------------------------------------------


def _llm_config(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "omkd.toml"
    path.write_text(f'[hedging.llm]\nprovider = "openai"\nbase_url = "{url}"\nmodel = "fake-writer"\nconcurrency = 2\n')
    return path


def test_the_llm_writes_each_entrys_prose_once_and_again_when_it_grows(tmp_path: Path) -> None:
    """The fake model summarises each entry (3 entries: 3 requests), the summary is plain text on the
    page; the same traces again ask nothing; a new occurrence asks again for that entry only."""
    from tests.fake_llm import FakeModel

    model = FakeModel().start()
    try:
        config = _llm_config(tmp_path, model.openai_url)
        _session(tmp_path / "traces" / "a.jsonl", [("deploy", "docs/a.md"), ("deploy", "docs/*b*.md"), ("audit", "x")])
        assert _run(tmp_path / "wiki", tmp_path / "traces", "--llm", config).exit_code == 0
        assert len(model.requests) == 3
        page = (tmp_path / "wiki" / "skills" / "deploy.md").read_text()
        assert "- summary (by `fake-writer`, at 1 times seen): The agents looked for docs/a.md and it does" in page
        assert r"looked for docs/\*b\*.md and it does not exist; write it down." in page  # text, not emphasis
        first = _tree(tmp_path / "wiki")
        assert _run(tmp_path / "wiki", tmp_path / "traces", "--llm", config).exit_code == 0
        assert (len(model.requests), _tree(tmp_path / "wiki")) == (3, first)
        _session(tmp_path / "traces" / "b.jsonl", [("deploy", "docs/a.md")], session="s-2")
        assert _run(tmp_path / "wiki", tmp_path / "traces", "--llm", config).exit_code == 0
        assert len(model.requests) == 4
        assert "Missing: docs/a.md" in model.requests[-1][1]["messages"][-1]["content"]
        assert "Earlier summary (written at 1 times seen)" in model.requests[-1][1]["messages"][-1]["content"]
        assert "at 2 times seen" in (tmp_path / "wiki" / "skills" / "deploy.md").read_text()
    finally:
        model.stop()


@pytest.mark.parametrize("mode", ["error", "garbage"])
def test_a_failing_model_leaves_the_deterministic_wiki(tmp_path: Path, mode: str) -> None:
    """The model down (HTTP 500) or answering nothing usable: every page is byte for byte the one
    made without the model."""
    from tests.fake_llm import FakeModel

    _session(tmp_path / "traces" / "a.jsonl", [("deploy", "docs/a.md"), ("audit", "docs/a.md")])
    assert _run(tmp_path / "plain", tmp_path / "traces").exit_code == 0
    model = FakeModel().start()
    try:
        model.mode = mode
        result = _run(tmp_path / "with-llm", tmp_path / "traces", "--llm", _llm_config(tmp_path, model.openai_url))
        assert result.exit_code == 0, result.output
        assert len(model.requests) == 2
    finally:
        model.stop()
    without_log = {k: v for k, v in _tree(tmp_path / "plain").items() if k != "log.md"}
    assert {k: v for k, v in _tree(tmp_path / "with-llm").items() if k != "log.md"} == without_log


def test_llm_without_a_model_is_refused_by_name(tmp_path: Path) -> None:
    config = tmp_path / "omkd.toml"
    config.write_text("[wiki]\nllm = true\n")
    result = _run(tmp_path / "wiki", tmp_path, "--llm", config)
    assert result.exit_code == 2
    assert "wiki.llm: needs hedging.llm.model" in result.output


# --- not seen since, or too early to tell (spec §9.6) ------------------------------------------


def test_not_seen_since_waits_for_as_many_segments_after_the_change_as_before_it(tmp_path: Path) -> None:
    """The miss is in the 6th of 6 segments before the commit: with 3 segments after it the entry
    is ``too early to tell``; with 6 after it (the next run) it is ``not seen since`` the commit."""
    from tests.test_impact import CHANGE, git, project, sessions

    repo = project(tmp_path, "shop")
    traces = tmp_path / "projects"
    sessions(repo, traces, {18: "cccccm", 21: "ccc"})
    (repo / ".claude" / "skills" / "deploy" / "SKILL.md").write_text("# deploy\nThe port is 8443.\n")
    git(repo, "commit", "-q", "-am", "deploy: document the port", when=CHANGE)
    short = subprocess.run(["git", "-C", str(repo), "log", "-1", "--format=%h"], check=True, capture_output=True,
                           text=True).stdout.strip()  # fmt: skip
    change = f"commit `{short}` `deploy: document the port` (2026-03-04)"
    assert _run(tmp_path / "wiki", traces).exit_code == 0
    page = tmp_path / "wiki" / "skills" / "deploy.md"
    assert f"- state: too early to tell after {change} (too few segments since it)" in page.read_text()
    sessions(repo, traces, {22: "ccc"})
    assert _run(tmp_path / "wiki", traces).exit_code == 0
    assert f"- state: not seen since {change}" in page.read_text()


def test_too_early_is_kept_while_the_impact_report_says_nothing_of_the_entry_s_change() -> None:
    """``quiet.settle``: what the report says of the change the quiet edit belongs to (a merged
    change from its first to its last edit) decides; a report silent on it (another change, the
    window moved on) leaves what was found, through merges and the state file; being quiet since
    another change starts afresh."""
    from omkd.engine.wiki import quiet

    changes = [Change("2026-01-01T11:00:00Z", "bbbbbbb", "document the deploy")]
    found = [_occurrence("d", "p", 1, "2026-01-01T10:00:00.000Z")]
    state = entries.merge(entries.WikiState(), found, {"d": changes}).state
    early = quiet.Judged("2026-01-01T10:30:00", "2026-01-01T11:00:00", frozenset({"p"}), frozenset())
    settled = quiet.settle(state, {"d": [early]})
    assert pages.state_of(settled.skills["d"].entries["p"]).startswith("too early to tell after commit `bbbbbbb`")
    again = state_plain.from_plain(state_plain.to_plain(entries.merge(settled, [], {"d": changes}).state))
    other = quiet.Judged("2026-01-02T00:00:00", "2026-01-02T00:00:00", frozenset(), frozenset({"p"}))
    assert quiet.settle(again, {"d": [other]}).skills["d"].entries["p"].too_early
    said = quiet.Judged("2026-01-01T11:00:00", "2026-01-01T11:00:00", frozenset(), frozenset({"p"}))
    assert not quiet.settle(again, {"d": [said]}).skills["d"].entries["p"].too_early
    later = [*changes, Change("2026-01-01T13:00:00Z", "ccccccc", "again")]
    seen_again = [_occurrence("d", "p", 2, "2026-01-01T12:00:00.000Z")]
    moved = entries.merge(again, seen_again, {"d": later}).state.skills["d"].entries["p"]
    assert (moved.quiet_since, moved.too_early) == (later[1], False)


# --- hard to find and missing (spec §8.5.1) ----------------------------------------------------------


def test_a_skill_page_splits_what_the_agents_found_themselves_from_what_is_missing(tmp_path: Path) -> None:
    """deploy misses ``docs/deploy.md``, then reads it at its real place: hard to find, with the read
    that found it (the pointer to write). It misses ``docs/other.md`` and never finds it: missing.
    The page is the same bytes whichever order the two traces are merged in."""
    t = Transcript(session_id="s-1")
    t.prompt("task")
    t.skill("deploy")
    t.glob_miss("**/deploy.md")
    t.read_ok("/home/dev/shop/ops/deploy.md")
    t.glob_miss("docs/other.md")
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "a.jsonl").write_bytes(t.to_bytes())
    assert _run(tmp_path / "wiki", tmp_path / "traces").exit_code == 0
    page = (tmp_path / "wiki" / "skills" / "deploy.md").read_text()
    hard, missing = page.index("## Hard to find (1)"), page.index("## Missing (1)")
    assert hard < page.index("### `**/deploy.md`") < missing < page.index("### `docs/other.md`")
    assert "- found by the agents themselves afterwards: 1 of 1 times, with:" in page
    assert "`Read found the same target: /home/dev/shop/ops/deploy.md`" in page
    assert "2 things not found: 1 hard to find, 1 missing (2 open)" in page
    state = wiki.load_state(wiki.WikiDirectory(tmp_path / "wiki"))
    deploy = state.skills["deploy"].entries
    assert (deploy["**/deploy.md"].hard_to_find, deploy["docs/other.md"].hard_to_find) == (True, False)
    recovered = _occurrence("deploy", "docs/a.md", 1)
    recovered = dataclasses.replace(recovered, found_by="Grep found the same target: ops/a.md", found_line=9)
    plain = _occurrence("deploy", "docs/a.md", 2, "2026-01-01T00:00:02.000Z")
    empty = entries.WikiState()
    one = entries.merge(entries.merge(empty, [recovered], {}).state, [plain], {}).state
    other = entries.merge(entries.merge(empty, [plain], {}).state, [recovered], {}).state
    assert one == other
    assert state_plain.from_plain(state_plain.to_plain(one)) == one
    assert pages.pages_of(one) == pages.pages_of(other)
    assert one.skills["deploy"].entries["docs/a.md"].recovered == ("id-deploy-docs/a.md-1",)
