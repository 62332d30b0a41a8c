"""The log: the event types, their canonical encoding and hash chain, their JSON Schema, and the
store that appends and reads them (SQLite by default)."""
