"""`morale serve`: the store over HTTP. server.py is the Litestar app (the API, its OpenAPI schema
and the viewer in static/); folds.py keeps each battle's fold between requests; live.py and
streaming.py follow battles live (the SSE and NDJSON feeds). Tokens (../access.py) and the service
that loads, decides and appends (../service.py) are shared with the CLI."""
