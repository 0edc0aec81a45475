"""tower-sim: block-tower builds in 3D, their stability, and four tabletop games.

Subpackages by role (docs/architecture.md): `tower.games` the game kit, `tower.climbers` The Climbers,
`tower.app` the command line that wires rules, physics and the viewer together. `import tower` loads nothing
heavy.
"""

__version__ = "0.1.0"
