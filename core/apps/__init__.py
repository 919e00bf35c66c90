"""Programs built on the scheduler: the CLI, simulate, bench, the runner, tracing and the HTTP server."""
