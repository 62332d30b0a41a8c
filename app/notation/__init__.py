"""The battle notation: a battle's log as text a person can type from their notes and read back.

grammar.lark is the single source of the syntax; syntax.py loads it and spells ids and values as
it reads them; writer.py turns a log's events into notation (`morale notation export`); reader.py
turns notation into events, each with the line and column it came from; header.py reads the
header's tags into the battle's first events; check.py runs the events through the referee before
anything is written, and compares them with a stored battle (`--verify-against`).
"""
