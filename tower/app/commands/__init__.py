"""One module a `tower` subcommand, each with `run(args) -> exit status`."""
