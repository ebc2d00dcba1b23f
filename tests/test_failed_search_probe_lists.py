"""Spec §3.1: a list of path probes that failed. The exit status of ``A && B`` or ``A; B`` is a part's, so
when every part that can fail probes a path and the list failed, one probe did not find its path,
whatever the others printed — said by its message or hidden by ``2>/dev/null``. With anything else in
the list (an action, ``grep``, ``find``, a ``||``), or a fault's message, which part failed is not known.
Hand-made transcripts on every agent's shell tool; figures by hand from the spec's words."""

from __future__ import annotations

import pytest

from omkd.engine import shell, silent_probes
from tests.test_failed_search_spec31 import AGENTS, Agent, misses, patterns

LISTING = "README.md\nagents\nsettings.json"


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code"),
    [
        ("ls ~/.claude/ 2>/dev/null && ls ~/.claude/commands/ 2>/dev/null && ls ~/.claude/skills/ 2>/dev/null",
         LISTING, 2),
        ('ls "/srv/app/" 2>/dev/null\nls "/srv/app/versions/" 2>/dev/null', "Cache", 2),
        ("cat /opt/venv/bin/pip 2>/dev/null | head -3; ls /srv/files/ 2>/dev/null; cat /srv/files/req.txt 2>/dev/null",
         "#!/opt/venv/bin/python3\nimport re\nREADME.md", 1),
        ('ls /tmp/toolkit/ && echo "---" && ls /tmp/other-skills/',
         "alpha\nbeta\n---\nls: cannot access '/tmp/other-skills/': No such file or directory", 2),
        ("DIR=/srv/app; ls $DIR; test -f $DIR/retry.yaml && echo yes", LISTING, 1),
        ("ls -d /srv/app /srv/lib", "ls: cannot access '/srv/lib': No such file or directory\n/srv/app", 2),
    ],
    ids=["&& chain, stderr hidden", "new lines", "; list with a probe piped to head", "not-found said",
         "a test after an assignment", "one probe of two paths"],
)  # fmt: skip
def test_a_list_of_probes_that_failed_is_a_miss_whatever_the_others_printed(
    agent: Agent, command: str, output: str, code: int
) -> None:
    assert misses(agent(command, output, code)) == 1


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code"),
    [
        ("ls /srv/app/ && npm run build 2>/dev/null", LISTING, 1),  # the build may have failed
        ('cd /srv && python convert.py 2>&1 | tail -5\nls -la /srv/*.pdf', "Traceback: boom", 2),  # checks an action
        ("ls /srv/app/ 2>/dev/null; grep -rn RetryBudget src 2>/dev/null", LISTING, 2),  # grep's 2 comes with hits
        ("ls /srv/app/; find / -name retry.yaml 2>/dev/null", LISTING + "\n/etc/retry.yaml", 1),  # find: denied dirs
        ("ls /srv/app/ 2>/dev/null || ls /srv/ 2>/dev/null", LISTING, 2),  # a || decides which part ran
        ("ls /srv/app/ && cat /srv/app/agents", LISTING + "\ncat: /srv/app/agents: Is a directory", 1),  # a fault
        ("ls /srv/app/ && cat /srv/app/key.pem", LISTING + "\ncat: /srv/app/key.pem: Permission denied", 1),
        ("ls /srv/app/ && cat /srv/app/README.md", LISTING + "\n# App", 1),  # no message, stderr shown: unknown
        ("ls /srv/app/ 2>/dev/null; ls /srv/lib/ 2>/dev/null", LISTING, 130),  # interrupted, not a probe's code
    ],
    ids=["a build", "a probe checking an action", "grep", "find", "||", "is a directory", "permission denied",
         "no message and stderr shown", "killed"],
)  # fmt: skip
def test_a_list_whose_failing_part_is_not_known_to_be_a_probe_is_no_miss(
    agent: Agent, command: str, output: str, code: int
) -> None:
    assert misses(agent(command, output, code)) == 0


@pytest.mark.parametrize(
    "command", ["cat /srv/app/README.md 2>/dev/null", "cat /srv/app/a.md /srv/app/b.md 2>/dev/null | head -5"]
)
def test_a_single_probe_of_one_path_or_a_pipeline_that_cannot_fail_is_no_list(command: str) -> None:
    """One probe of one path alone is not a list: its own output decides (``shell.other_failure`` stays for
    it); a pipeline ending in a reader of its input exits with the reader's status, not the probe's."""
    assert not silent_probes.probe_failed(command, shell.parse(command), 1, ["partial"])


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code", "pattern"),
    [
        ('ls "/srv/app/" 2>/dev/null\nls "/srv/app/versions/" 2>/dev/null', "Cache", 2, "/srv/app/versions/"),
        ("cat /opt/venv/bin/pip 2>/dev/null | head -3; ls /srv/files/ 2>/dev/null; cat /srv/files/req.txt 2>/dev/null",
         "#!/opt/venv/bin/python3\nREADME.md", 1, "/srv/files/req.txt"),
        ("ls /srv/ 2>/dev/null; ls /srv/app/ 2>/dev/null && ls /srv/app/lib/ 2>/dev/null", "app", 2,
         "/srv/app/ | /srv/app/lib/"),
        ("ls /tmp/toolkit/ && ls /tmp/other-skills/ && ls /tmp/third/",
         "alpha\nls: cannot access '/tmp/other-skills/': No such file or directory", 2, "/tmp/other-skills/"),
    ],
    ids=["the last line's", "the last part's", "the last ;-part's && chain", "the message's"],
)  # fmt: skip
def test_the_pattern_is_the_probes_the_exit_status_can_be(
    agent: Agent, command: str, output: str, code: int, pattern: str
) -> None:
    """Spec §6: the pattern names the stage that missed. The status of ``A; B`` is ``B``'s; of ``A && B``
    the first failing part's, not told when it failed in silence; a not-found message names its path."""
    assert patterns(agent(command, output, code)) == [pattern]
