"""The PyVista viewer: pure scenes from what a player sees, rendered on screen or offscreen; play windows.

The viewer reads game state (`state.view(player)`, the traits a game declares) and never decides legality. It
knows no physics wiring either: where it shows a verdict or a fall (build pictures, what-if, the demo's collapse
animation) the application hands it a `Physics` object.
"""

from __future__ import annotations

from typing import Any, Protocol


class Physics(Protocol):
    """The physics judges as the viewer uses them (the application passes `tower.app.stability`)."""

    def judge_build(self, build: Any, statics_only: bool = False) -> Any:
        """The combined verdict of a build (`physics.Verdict`)."""

    def fall(self, build: Any, seconds: float = 2.0) -> Any:
        """The PyBullet run of a build with its trajectory recorded (`physics.DynamicsResult`)."""

    def forces(self, build: Any) -> Any:
        """The minimum-norm contact forces of a build (`physics.ContactForces`): the `--forces` overlay."""

    def removal(self, build: Any, statics_only: bool = False) -> Any:
        """The removal map of a build's blocks (`physics.RemovalMap`): the `--removal-map` overlay."""
