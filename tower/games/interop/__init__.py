"""Adapters to the field's standard interfaces: OpenSpiel games and PettingZoo environments.

- `tower.games.interop.actions`: the integer action ids shared by both adapters (one game move = one or more ids).
- `tower.games.interop.stepper`: a game driven by those ids, one decision at a time.
- `tower.games.interop.features`: fixed-size numeric observations built from `state.view(player)`.
- `tower.games.interop.openspiel`: the games registered with OpenSpiel (extra `openspiel`), MCTS/IS-MCTS players.
- `tower.games.interop.pettingzoo`: AEC environments with action masks (extra `rl`).

Nothing here is imported by `import tower`; the third-party libraries are imported only by their own adapter.
"""
