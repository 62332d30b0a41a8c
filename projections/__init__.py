"""Read models rebuilt from the log: the board, the tests due, the narrative, the feed and the log
table, and the audit tools (explain, time travel, what-if, verify, luck, snapshots)."""
