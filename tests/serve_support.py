"""Limits of the servers in the functional tests of `tower serve`: the production ones, except that one client
(the test, on 127.0.0.1) may create and hold many games and send many requests. The limits themselves are tested
with their defaults in tests/test_serve_limits.py."""

from __future__ import annotations

from tower.app.serve.limits import Limits

ROOMY = Limits(game_burst=100_000, server_games_per_minute=1e9, server_labs_per_minute=1e9, running_games_per_client=100_000, request_burst=1_000_000,
               requests_per_second=100_000.0, replays_per_client=100, lab_burst=100_000, labs_per_client=100_000,
               hints_per_minute=1e9)
