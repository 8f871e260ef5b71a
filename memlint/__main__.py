from memlint.cli import main

main()
