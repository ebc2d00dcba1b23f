from omkd.cli import main

main()
