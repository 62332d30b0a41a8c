"""The shell around the referee: the `morale` CLI, rosters and tables read from TOML, the service
that loads, decides and appends, and the HTTP server with its live feed and viewer."""
