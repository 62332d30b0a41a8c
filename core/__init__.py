"""The referee, free of storage and I/O: the battle state, the rulesets and their shared state
machine, and `decide` and `evolve`, which check each proposed event and fold the accepted ones in."""
