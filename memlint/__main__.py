from memlint.cli import run

run()
