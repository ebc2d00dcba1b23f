"""``python -m omkd``: the command line (``omkd`` as a console script is ``cli.main`` too)."""

from omkd.cli import main

if __name__ == "__main__":
    main()
