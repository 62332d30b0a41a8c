"""The example battles, one folder a ruleset: a roster, its events as NDJSON and in notation (`morale examples`)."""
