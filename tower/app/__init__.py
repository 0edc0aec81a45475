"""The application: the `tower` command line, wiring the rules, physics and the viewer together."""
