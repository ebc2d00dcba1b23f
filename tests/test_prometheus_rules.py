"""The Prometheus rules and configs of the ops pack, checked by Prometheus's own tools.

promtool validates both rule files and both configs and runs the alert unit tests in
``tests/prometheus/`` (per alert: it fires when it should, stays silent for an underpowered
skill or a healthy host, during a replay, and across a counter reset). A real Prometheus
loading the rule files serves them back on ``/api/v1/rules``: that is how the tests read
names, expressions and annotations, as Prometheus itself reads them.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from omkd.engine.intervals import promql_rate_interval
from omkd.render.runbook import anchor
from tests.prometheus.server import PrometheusProcess, tool, wait_until

REPO: Final = Path(__file__).resolve().parents[1]
CONFIG: Final = REPO / "config" / "prometheus"
RULE_FILES: Final = (CONFIG / "omkd-rules.yml", CONFIG / "omkd-alerts.yml")
UNIT_TESTS: Final = sorted((REPO / "tests" / "prometheus").glob("*.yml"))
RUNBOOK: Final = REPO / "README.md"
RUNBOOK_URL: Final = "http://127.0.0.1:9717/runbook#"
ALERTS: Final = {
    "OmkdWeightedGapRateHigh",
    "OmkdWeightedGapRateHighConfident",
    "OmkdGeneralWeightedGapRateHigh",
    "OmkdGapRateRegression",
    "OmkdIngestionStalled",
    "OmkdParseErrorsRising",
    "OmkdCheckpointsFailing",
    "OmkdDown",
    "OmkdUncheckedWriteHigh",
}
# Per-host ratios: right for one host, wrong once summed or averaged over many.
PER_HOST_RATIOS: Final = re.compile(
    r"(?<![\w:])omkd_window_(?:(?:overall_)?(?:weighted_)?gap_ratio|coverage_ratio)(?![\w:])"
)
RECORD_NAME: Final = re.compile(r"^(skill|omkd):[a-z0-9_]+:[a-z0-9_]+$")
RECORDED_EXPR: Final = re.compile(r"- record: (?P<name>\S+)\n\s+expr: >-\n(?P<expr>(?:\s{10}.*\n)+)")
ALERT_CASE: Final = re.compile(r"^\s*alertname: (\w+)\n\s*exp_alerts:(.*)$", re.MULTILINE)


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, check=False, timeout=120)


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_rule_file_passes_promtool_check(path: Path) -> None:
    """``promtool check rules`` accepts each rule file, duplicate rules counted as errors."""
    checked = run(tool("promtool"), "check", "rules", "--lint=all", "--lint-fatal", path)
    assert (checked.returncode, checked.stderr) == (0, ""), checked.stdout


def test_server_config_passes_promtool_check() -> None:
    """``promtool check config`` accepts prometheus.yml and the rule files it loads."""
    checked = run(tool("promtool"), "check", "config", "--lint=all", "--lint-fatal", CONFIG / "prometheus.yml")
    assert (checked.returncode, checked.stderr) == (0, ""), checked.stdout
    assert "SUCCESS: 2 rule files found" in checked.stdout


def test_agent_config_passes_promtool_check_in_agent_mode() -> None:
    """``promtool check config --agent`` accepts prometheus-agent.yml (no rules, remote_write)."""
    checked = run(tool("promtool"), "check", "config", "--agent", CONFIG / "prometheus-agent.yml")
    assert (checked.returncode, checked.stderr) == (0, ""), checked.stdout


@pytest.mark.parametrize("path", UNIT_TESTS, ids=lambda p: p.name)
def test_alert_unit_tests_pass(path: Path) -> None:
    """``promtool test rules`` passes each unit test file of tests/prometheus/."""
    tested = run(tool("promtool"), "test", "rules", path)
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_every_alert_has_a_case_that_fires_and_one_that_stays_silent() -> None:
    """Each alert appears in the unit tests both with expected alerts and with none."""
    cases: dict[str, set[str]] = {name: set() for name in ALERTS}
    for path in UNIT_TESTS:
        for name, expected in ALERT_CASE.findall(path.read_text()):
            cases.setdefault(name, set()).add("silent" if expected.strip() == "[]" else "fires")
    assert cases == {name: {"fires", "silent"} for name in ALERTS}


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[dict[str, Any]]]:
    """Every rule as the real Prometheus loaded it from the two rule files."""
    files = ", ".join(f'"{path}"' for path in RULE_FILES)
    config = f"global:\n  evaluation_interval: 1m\nrule_files: [{files}]\n"
    with PrometheusProcess(tmp_path_factory.mktemp("rules"), config) as prometheus:
        prometheus.start()
        groups = wait_until(lambda: prometheus.api("rules")["groups"] or None, "rule groups loaded")
        yield [rule for group in groups for rule in group["rules"]]


def test_alerts_carry_severity_summary_description_and_runbook(rules: list[dict[str, Any]]) -> None:
    """Every alert has a severity (``info`` only for ``general``'s) and summary, description and
    runbook_url annotations."""
    alerts = {rule["name"]: rule for rule in rules if rule["type"] == "alerting"}
    assert set(alerts) == ALERTS
    incomplete = {
        name: sorted({"summary", "description", "runbook_url"} - set(rule["annotations"]))
        for name, rule in alerts.items()
        if not {"summary", "description", "runbook_url"} <= set(rule["annotations"])
        or rule["labels"].get("severity") not in ("info", "warning", "critical")
    }
    assert incomplete == {}


def test_each_runbook_url_points_at_its_alerts_section(rules: list[dict[str, Any]]) -> None:
    """runbook_url is omkd's /runbook#<alert name in lower case>, and the README's Runbook has that section."""
    anchors = {anchor(line[4:]) for line in RUNBOOK.read_text().splitlines() if line.startswith("### ")}
    urls = {rule["name"]: rule["annotations"]["runbook_url"] for rule in rules if rule["type"] == "alerting"}
    assert urls == {name: RUNBOOK_URL + name.lower() for name in ALERTS}
    assert {name.lower() for name in ALERTS} <= anchors


def test_recording_rules_follow_level_metric_operations(rules: list[dict[str, Any]]) -> None:
    """Recorded names are level:metric:operations, level ``skill`` (per skill) or ``omkd`` (fleet-wide)."""
    names = [rule["name"] for rule in rules if rule["type"] == "recording"]
    assert [name for name in names if not RECORD_NAME.match(name)] == []
    assert len(names) == len(set(names))


def test_rules_sum_before_dividing(rules: list[dict[str, Any]]) -> None:
    """No rule averages, and none reads omkd's per-host ratio gauges: ratios are ratios of sums."""
    offending = [rule["name"] for rule in rules if PER_HOST_RATIOS.search(rule["query"]) or "avg" in rule["query"]]
    assert offending == []


def test_thresholds_live_in_one_recording_rule_each(rules: list[dict[str, Any]]) -> None:
    """Each alert threshold is one ``omkd:alert_threshold:*`` rule; the gap alerts use them, not literals."""
    thresholds = {rule["name"]: rule["query"] for rule in rules if rule["name"].startswith("omkd:alert_threshold:")}
    assert thresholds == {
        "omkd:alert_threshold:weighted_gap_rate": "vector(0.3)",
        "omkd:alert_threshold:gap_rate_regression": "vector(0.15)",
        "omkd:alert_threshold:gap_rate_regression_min_segments_1d": "vector(5)",
        "omkd:alert_threshold:gap_rate_regression_min_segments_7d": "vector(20)",
        "omkd:alert_threshold:unchecked_write_rate": "vector(0.1)",
    }
    queries = {rule["name"]: rule["query"] for rule in rules if rule["type"] == "alerting"}
    high, regression = queries["OmkdWeightedGapRateHigh"], queries["OmkdGapRateRegression"]
    assert "omkd:alert_threshold:weighted_gap_rate" in high
    assert all(name in regression for name in thresholds if "regression" in name)
    unchecked = queries["OmkdUncheckedWriteHigh"]
    assert "omkd:alert_threshold:unchecked_write_rate" in unchecked
    assert re.findall(r"\b0\.\d+|\b(?:5|20)\b", high + regression + unchecked) == []


def _bound_rules() -> dict[str, str]:
    """The interval recording rules, as ``intervals.promql_rate_interval`` writes them."""
    expected = {}
    for level, n in (
        ("skill:omkd_window_", "skill:omkd_window_segments:sum"),
        ("omkd:window_", "omkd:window_segments:sum"),
    ):
        for rate in ("gap_rate", "weighted_gap_rate"):
            lower, upper = promql_rate_interval(n, f"{level}{rate}:ratio")
            expected[f"{level}{rate}:wilson95_lower"] = lower
            expected[f"{level}{rate}:wilson95_upper"] = upper
    lower, _ = promql_rate_interval(
        "skill:omkd_window_writing_segments:sum", "skill:omkd_window_unchecked_write_rate:ratio"
    )  # the unchecked-write rate (spec §8.7): its lower bound only, which the alert reads
    expected["skill:omkd_window_unchecked_write_rate:wilson95_lower"] = lower
    return expected


def _spaced(query: str) -> str:
    return re.sub(r"\s+", " ", query).strip()


def test_interval_rules_are_omkds_own_method() -> None:
    """The bounds recorded from summed counters are the interval omkd computes (written out by
    ``promql_rate_interval``), so fleet bounds and the daemon's own agree (checked numerically
    against a real Prometheus in test_prometheus_integration)."""
    text = (CONFIG / "omkd-rules.yml").read_text()
    recorded = {m["name"]: _spaced(m["expr"]) for m in RECORDED_EXPR.finditer(text)}
    assert {name: recorded.get(name) for name in _bound_rules()} == _bound_rules()


def test_dashboard_interval_columns_are_omkds_own_method() -> None:
    """The overview's weighted 95 % low/high columns use the same formula over the selected hosts."""
    dashboard = json.loads((REPO / "config" / "grafana" / "omkd.json").read_text())
    selected = 'instance=~"$instance", skill=~"$skill", agent=~"$agent"'
    n = f"sum by (skill, agent) (omkd_window_segments{{{selected}}})"
    p = f"(sum by (skill, agent) (omkd_window_weighted_gap_segments{{{selected}}}) / ({n} > 0))"
    queries = [
        t["expr"]
        for panel in dashboard["panels"]
        if panel.get("title") == "Skills in the window"
        for t in panel.get("targets", [])
        if "sqrt(" in t.get("expr", "")
    ]
    assert queries == list(promql_rate_interval(n, p))


def test_dashboard_metacognition_bounds_are_omkds_own_method() -> None:
    """The row of what the agents did at a gap (spec §8.7): M1, M2 and M4 each with the interval
    omkd computes, over its own denominator (the segments that hit a gap, the open-gap segments,
    the writing segments), summed over the selected hosts."""
    dashboard = json.loads((REPO / "config" / "grafana" / "omkd.json").read_text())
    selected = 'instance=~"$instance", skill=~"$skill", agent=~"$agent"'

    def summed(metric: str, extra: str = "") -> str:
        return f"sum by (skill, agent) ({metric}{{{selected}{extra}}})"

    lookup = summed("omkd_window_lookup_gap_segments")
    recovered = summed("omkd_window_gap_outcome_segments", ', outcome="recovered"')
    expected = []
    for k, n in (
        (recovered, lookup),
        (summed("omkd_window_asked_at_gap_segments"), summed("omkd_window_open_gap_segments")),
        (summed("omkd_window_unchecked_write_segments"), summed("omkd_window_writing_segments")),
    ):
        ratio = f"({k} / ({n} > 0))"
        expected += [ratio, *promql_rate_interval(n, ratio)]
    (panel,) = [p for p in dashboard["panels"] if p.get("title", "").startswith("What the agents did at a gap, per")]
    targets = [t["expr"] for t in panel["targets"]]
    assert [t for t in targets if " / (" in t] == expected
    assert not any("proceeded" in t and " / " in t for t in targets)  # no pushed-through rate (unjudged)


METACOG_INPUTS: Final = re.compile(
    r"(?<![\w:])omkd_(?:window_(?:overall_)?)?(?:lookup_gap|gap_outcome|open_gap|asked_at_gap|writing|unchecked_write"
    r"|gap_episodes|self_recovery|proceeded)\w*(?![\w:])"
)
"""The §8 figures' series (counters, window gauges, ratios) and what is recorded of them."""


def test_the_one_alert_on_what_the_agents_did_at_a_gap_is_unchecked_writes_at_info(
    rules: list[dict[str, Any]],
) -> None:
    """Spec §8.7: of §8's figures only M4 is alerted on, `OmkdUncheckedWriteHigh`, severity info; M1 is a
    findability hint, M2 and M3 (unjudged candidates) stay on the dashboard."""
    recorded = {rule["name"]: rule["query"] for rule in rules if rule["type"] == "recording"}

    def reads(query: str, seen: frozenset[str] = frozenset()) -> set[str]:
        found = set(METACOG_INPUTS.findall(query))
        for name, expr in recorded.items():
            if name not in seen and re.search(rf"(?<![\w:]){re.escape(name)}(?![\w:])", query):
                found |= reads(expr, seen | {name})
        return found

    alerts = {rule["name"]: rule for rule in rules if rule["type"] == "alerting"}
    reading = {name: reads(rule["query"]) for name, rule in alerts.items()}
    assert {name for name, found in reading.items() if found} == {"OmkdUncheckedWriteHigh"}
    assert reading["OmkdUncheckedWriteHigh"] == {"omkd_window_writing_segments", "omkd_window_unchecked_write_segments"}
    assert alerts["OmkdUncheckedWriteHigh"]["labels"]["severity"] == "info"


def test_dashboard_metacognition_rates_carry_the_tier_of_their_own_denominator() -> None:
    """Spec §8.6: each measure has the confidence tier of §4 computed on its own denominator
    (underpowered < 5, low < 20, high): the row's table gives the three tiers beside the rates."""
    dashboard = json.loads((REPO / "config" / "grafana" / "omkd.json").read_text())
    selected = 'instance=~"$instance", skill=~"$skill", agent=~"$agent"'
    (panel,) = [p for p in dashboard["panels"] if p.get("title", "").startswith("What the agents did at a gap, per")]
    targets = {t["refId"]: t["expr"] for t in panel["targets"]}
    renamed = next(t for t in panel["transformations"] if t["id"] == "organize")["options"]["renameByName"]
    columns = {renamed[f"Value #{ref}"]: expr for ref, expr in targets.items()}
    for column, metric in (
        ("self-recovery (M1) tier", "omkd_window_lookup_gap_segments"),
        ("asked at a gap (M2) tier", "omkd_window_open_gap_segments"),
        ("unchecked writes (M4) tier", "omkd_window_writing_segments"),
    ):
        n = f"sum by (skill, agent) ({metric}{{{selected}}})"
        assert columns[column] == f"({n} >= bool 5) + ({n} >= bool 20)", column
        (override,) = [o for o in panel["fieldConfig"]["overrides"] if o["matcher"]["options"] == column]
        (mapping,) = [p["value"] for p in override["properties"] if p["id"] == "mappings"]
        texts = {value: said["text"] for value, said in mapping[0]["options"].items()}
        assert texts == {"0": "underpowered", "1": "low", "2": "high"}, column
