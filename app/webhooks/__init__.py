"""Webhooks: a battle's feed items posted to the URLs its referee registers (bots, league tables).

`hooks.py` registers, lists, resumes and removes a battle's hooks (the referee's operations, for the
CLI and HTTP alike); `message.py` makes one delivery: the feed item as a CloudEvents 1.0 event,
signed as Standard Webhooks says; `deliver.py` delivers, at least once and in order per hook,
retrying with backoff, pausing a URL that keeps failing, from whichever node holds the store's lease.
`unknown.py` is the refusal of a hook id the battle lacks, apart so the CLI names it cheaply.
"""
