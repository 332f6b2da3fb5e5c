"""``python -m arena.cli``: the ``arena`` command without its console script."""

from arena.cli.app import main

main()
