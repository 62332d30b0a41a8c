"""`python -m morale.app.cli`: the `morale` command."""

from . import main

main()
