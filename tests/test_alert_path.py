"""The alert path end to end, with real parts: a real omkd daemon reading transcripts, Debian's
``prometheus`` scraping it and evaluating the shipped recording rules and alerts, Debian's
``prometheus-alertmanager`` routing what fires, and a webhook receiver in this process.

A skill, and the work outside any skill (``general``), start healthy; then transcripts push each
over the weighted-gap-rate threshold, and the receiver must get ``OmkdWeightedGapRateHigh`` and
``OmkdGeneralWeightedGapRateHigh`` with the skill, the agent, the rate and the threshold the
daemon and the rules hold, and a ``runbook_url`` that opens on the alert's README section.

The rule files Prometheus loads are the shipped ones; the alerts' copy differs only where a
test must: the two alerts' ``for:`` is 2 s instead of 30 min / 2 h, and the runbook prefix
names this daemon's port instead of omkd's default one (both asserted line by line). Scrapes and
evaluations run every second.
"""

from __future__ import annotations

import difflib
import re
import shutil
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Final

import pytest

from omkd.render.runbook import anchor
from omkd.testing import DaemonProcess
from tests import claude_lines as cl
from tests.live_helpers import append, minute, session_bytes, wait_lines
from tests.prometheus.alertmanager import AlertmanagerProcess, WebhookReceiver
from tests.prometheus.server import PrometheusProcess, wait_until

pytestmark = pytest.mark.slow

REPO: Final = Path(__file__).resolve().parents[1]
CONFIG: Final = REPO / "config" / "prometheus"
README: Final = REPO / "README.md"
SHORTENED: Final = {"OmkdWeightedGapRateHigh": "2s", "OmkdGeneralWeightedGapRateHigh": "2s"}
SHIPPED_RUNBOOK: Final = "http://127.0.0.1:9717/runbook#"
SEGMENTS: Final = 5
"""Per side and per phase: 5 segments reach tier ``low``, which the gap alerts need."""
SHIPPED_ALERTING: Final = (
    '# alerting:\n#   alertmanagers:\n#     - static_configs:\n#         - targets: ["127.0.0.1:9093"]\n'
)
ALERTMANAGER_CONFIG: Final = """\
route:
  receiver: webhook
  group_by: [alertname, skill, agent]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: webhook
    webhook_configs:
      - url: "{url}"
        send_resolved: false
"""


def replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"{old!r} should appear once in the shipped file"
    return text.replace(old, new)


def alerts_copy(runbook_prefix: str) -> str:
    """The shipped omkd-alerts.yml with the ``for:`` of the alerts under test shortened and the
    runbook prefix replaced; any other difference fails."""
    shipped = (CONFIG / "omkd-alerts.yml").read_text()
    lines, alert, shortened = [], None, 0
    for original in shipped.splitlines(keepends=True):
        named = re.match(r"\s+- alert: (\w+)$", original)
        alert = named.group(1) if named else alert
        timed = re.match(r"(\s+for: )\S+$", original)
        line = original.replace(SHIPPED_RUNBOOK, runbook_prefix)
        if timed and alert in SHORTENED:
            line, shortened = f"{timed.group(1)}{SHORTENED[alert]}\n", shortened + 1
        lines.append(line)
    assert shortened == len(SHORTENED)
    copy = "".join(lines)
    changed = [
        line[2:] for line in difflib.ndiff(shipped.splitlines(), copy.splitlines()) if line.startswith(("- ", "+ "))
    ]
    assert changed, "the copy should differ from the shipped file"
    assert [line for line in changed if not re.match(r"\s+(for|runbook_url): ", line)] == []
    return copy


def prometheus_config(workdir: Path, target: str, alertmanager: str, runbook_prefix: str) -> str:
    """The shipped prometheus.yml scraping ``target`` every second, its alerting block uncommented
    for ``alertmanager``; the shipped rule files beside it (the alerts as ``alerts_copy``)."""
    workdir.mkdir(parents=True, exist_ok=True)
    shutil.copy(CONFIG / "omkd-rules.yml", workdir / "omkd-rules.yml")
    (workdir / "omkd-alerts.yml").write_text(alerts_copy(runbook_prefix))
    text = (CONFIG / "prometheus.yml").read_text()
    text = replace_once(text, "scrape_interval: 15s", "scrape_interval: 1s")
    text = replace_once(text, "evaluation_interval: 15s", "evaluation_interval: 1s")
    text = replace_once(text, '"127.0.0.1:9717"', f'"{target}"')
    alerting = "".join(line.removeprefix("# ") + "\n" for line in SHIPPED_ALERTING.splitlines())
    return replace_once(text, SHIPPED_ALERTING, alerting.replace("127.0.0.1:9093", alertmanager))


def general_sessions(root: Path, first: int, outcome: str) -> None:
    """``SEGMENTS`` sessions without a skill (each one ``general`` segment), a Glob that finds
    a file (``hit``) or answers "No files found" (``miss``: a failed search, weight 1.0)."""
    for n in range(first, first + SEGMENTS):
        call = f"toolu_general{n}"
        if outcome == "miss":
            answer, detail = "No files found", cl.GLOB_EMPTY
        else:
            answer, detail = "/p/src/app.py", cl.glob_hit("/p/src/app.py")
        records = [
            cl.user(f"general task {n}"),
            cl.tool_use(call, "Glob", {"pattern": f"docs/**/guide-{n}.md"}, f"msg_general{n}"),
            cl.tool_result(call, answer, detail),
        ]
        for record in records:
            record["timestamp"] = minute(30 + n)
            record["sessionId"] = f"0b3c4d5e-1111-4222-8333-{n:012d}"
        append(root / "-home-dev-shop" / f"general-{n}.jsonl", cl.jsonl(records))


def percentage(value: float) -> str:
    """Prometheus's ``humanizePercentage`` (``%.4g%%`` of the value times 100)."""
    return f"{value * 100:.4g}%"


def readme_sections() -> dict[str, str]:
    """``{anchor: first line of the section}`` of every ``###`` section of the README."""
    lines = README.read_text().splitlines()
    return {anchor(line[4:]): next(x for x in lines[i + 1 :] if x.strip()) for i, line in enumerate(lines)
            if line.startswith("### ")}  # fmt: skip


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 (loopback)
        return str(response.read().decode())


def lines_in(root: Path) -> int:
    return sum(path.read_bytes().count(b"\n") for path in root.rglob("*.jsonl"))


def test_a_skill_over_its_threshold_reaches_the_webhook(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    skill_file = root / "-home-dev-shop" / "deploy.jsonl"
    append(skill_file, session_bytes([("deploy", "hit")] * SEGMENTS))
    general_sessions(root, 0, "hit")
    (tmp_path / "omkd").mkdir()
    alert_names = "|".join(SHORTENED)
    with (
        DaemonProcess(tmp_path / "omkd", [root]) as daemon,
        WebhookReceiver() as receiver,
        AlertmanagerProcess(tmp_path / "alertmanager", ALERTMANAGER_CONFIG.format(url=receiver.url)) as alertmanager,
    ):
        daemon.start()
        wait_lines(daemon, lines_in(root))
        alertmanager.start()
        runbook_prefix = f"{daemon.url}/runbook#"
        config = prometheus_config(tmp_path / "prometheus", f"127.0.0.1:{daemon.port}", alertmanager.address,
                                   runbook_prefix)  # fmt: skip
        with PrometheusProcess(tmp_path / "prometheus", config) as prometheus:
            prometheus.start()
            # Healthy first: both rows recorded at 0 %, tier low, and neither alert pending or firing.
            for skill in ("deploy", "general"):
                prometheus.wait_query(
                    f'skill:omkd_window_weighted_gap_rate:ratio{{skill="{skill}"}} == 0'
                    f' and skill:omkd_window_confidence_tier:sum{{skill="{skill}"}} == 1',
                    f"{skill} recorded healthy",
                )
            assert prometheus.query(f'ALERTS{{alertname=~"{alert_names}"}}') == []

            # The push: as many failed searches again, on both sides.
            append(skill_file, session_bytes([("deploy", "miss")] * SEGMENTS, first_minute=SEGMENTS))
            general_sessions(root, SEGMENTS, "miss")
            wait_lines(daemon, lines_in(root))
            received = wait_until(
                lambda: {a["labels"]["alertname"]: a for a in receiver.alerts()} if len(
                    {a["labels"]["alertname"] for a in receiver.alerts()}) >= len(SHORTENED) else None,
                "both alerts at the webhook",
                deadline=40,
            )  # fmt: skip
            threshold = prometheus.values("omkd:alert_threshold:weighted_gap_rate", "")[""]
        status: dict[str, Any] = daemon.get("/api/v1/status")
        pages = {name: fetch(alert["annotations"]["runbook_url"]) for name, alert in received.items()}
        assert daemon.stop() == 0

    assert set(received) == set(SHORTENED), [a["labels"] for a in receiver.alerts()]
    rows = {(row["skill"], row["agent"]): row for row in status["skills"]}
    sections = readme_sections()
    for name, skill in (("OmkdWeightedGapRateHigh", "deploy"), ("OmkdGeneralWeightedGapRateHigh", "general")):
        alert = received[name]
        row = rows[(skill, "claude_code")]
        assert row["weighted_gap_rate"] > threshold  # the push went over
        assert alert["status"] == "firing"
        assert {k: alert["labels"][k] for k in ("skill", "agent")} == {"skill": skill, "agent": "claude_code"}
        annotations = alert["annotations"]
        # the value is the daemon's own rate, the bound the shipped threshold rule's
        assert f"weighted gap rate {percentage(row['weighted_gap_rate'])} in the window" in annotations["summary"]
        assert "(claude_code)" in annotations["summary"]
        description = " ".join(annotations["description"].split())
        assert f"above the threshold of {percentage(threshold)}" in description
        if skill != "general":
            assert f"over {row['segments']} segments" in description
        # the runbook: this daemon's /runbook, at the section of the README the alert has
        url = annotations["runbook_url"]
        parts = urllib.parse.urlsplit(url)
        assert url.startswith(runbook_prefix)
        assert parts.fragment == name.lower()
        assert parts.fragment in sections
        page = pages[name]
        assert f'<section id="{parts.fragment}">' in page
        section = page.split(f'<section id="{parts.fragment}">', 1)[1].split("</section>", 1)[0]
        first_words = re.sub(r"\*\*|`", "", sections[parts.fragment]).split(".")[0]
        assert first_words in re.sub(r"<[^>]+>", "", section)
