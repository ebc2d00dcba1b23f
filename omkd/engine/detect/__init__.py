"""The signal family: every gap signal declared once (``registry.py``), and the rules behind them."""
