#!/usr/bin/env bash
# Set up and run the whole test suite on a fresh machine (Debian/Ubuntu, Python 3.11+):
# Debian's prometheus package (promtool, prometheus) for the metrics and rules tests, its
# prometheus-alertmanager for the alert path (rules -> Alertmanager -> webhook), its systemd
# package (systemd-analyze) for the unit and its chromium for the HTML report, a virtual
# environment with omkd and its test tools, then pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=()
command -v promtool >/dev/null && command -v prometheus >/dev/null || packages+=(prometheus)
command -v prometheus-alertmanager >/dev/null || packages+=(prometheus-alertmanager)  # routes the alerts in tests/test_alert_path.py
command -v systemd-analyze >/dev/null || packages+=(systemd)  # verifies the systemd unit
command -v chromium >/dev/null || packages+=(chromium)  # renders the HTML report in its tests
fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || packages+=(fonts-noto-cjk)  # CJK text in the report's screenshots
if [ ${#packages[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${packages[@]}" >/dev/null
fi

python3 -m venv .venv
.venv/bin/pip install -q -e '.[test]'
exec .venv/bin/pytest "$@"
