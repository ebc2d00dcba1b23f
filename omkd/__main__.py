"""``python -m omkd``: the command line. A spawned catch-up worker imports this module again (as
``__mp_main__``): it must neither run the command line nor import it."""

if __name__ == "__main__":
    from omkd.cli import main

    main()
