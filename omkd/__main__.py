from omkd.cli import main

if __name__ == "__main__":  # a spawned worker imports this module again: it must not run the CLI
    main()
