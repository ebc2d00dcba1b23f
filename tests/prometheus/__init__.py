"""The ops pack's test material: promtool unit tests (``*.yml``) and a real Prometheus runner."""
