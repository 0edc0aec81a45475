"""The part of a build that can take part in a fall: what a focused PyBullet run simulates as moving bodies.

Where the statics judge finds a build falling it also names the blocks that fall (its failure mechanism); the
rest of the build stands without them. A simulation that asks "do these blocks really fall?" needs as moving
bodies only

- the seeds: the blocks statics sees fall (and, in the removal map, the blocks that touched the removed one:
  they lost a support or a side contact),
- everything resting on them, directly or through other blocks (it goes where they go),
- a buffer around that: every block within BUFFER_M of it, touching faces and edges included (what a falling
  block leans on, pushes or is held by through side-face friction, the one effect statics leaves out);

every other block is an immovable obstacle (mass 0). A run stops as soon as any block has moved 10 mm or turned
10 degrees, so nothing farther than the buffer can be reached before the verdict is in.

Two users: the half-step re-run of every PyBullet verdict where statics finds the build falling
(physics.verdict.judge_dynamics_checked), and the removal map's optional "moving-part" simulation, which also
focuses the first run (physics.removal).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from physics.contacts import TABLE, Contact
from physics.model import Box

#: Blocks closer than this (metres) to a moving block move too: more than a collapse's 10 mm, so anything a
#: falling block can touch before the run stops is simulated.
BUFFER_M = 0.012


def moving_part(boxes: Sequence[Box], contacts: Iterable[Contact], seeds: Iterable[int]) -> set[int]:
    """Indices of the boxes to simulate as moving bodies (module docstring); `contacts` those of `boxes`."""
    n = len(boxes)
    above: list[list[int]] = [[] for _ in range(n)]
    for c in contacts:
        if c.axis == 2 and c.a != TABLE:
            above[c.a].append(c.b)
    part: set[int] = set()
    todo = [i for i in seeds if 0 <= i < n]
    while todo:  # the seeds and what rests on them
        i = todo.pop()
        if i not in part:
            part.add(i)
            todo.extend(above[i])
    if not part:
        return part
    lo = np.array([b.lo for b in boxes], dtype=float)
    hi = lo + np.array([b.size for b in boxes], dtype=float)
    core = sorted(part)
    # gap between two boxes' extents along each axis (0 when they overlap or touch), the distance its norm
    gap = np.maximum(0.0, np.maximum(lo[None, core, :] - hi[:, None, :], lo[:, None, :] - hi[None, core, :]))
    near = np.flatnonzero((np.sqrt((gap ** 2).sum(axis=2)) <= BUFFER_M).any(axis=1))
    return part | {int(i) for i in near}


def held_still(boxes: Sequence[Box], contacts: Iterable[Contact], seeds: Iterable[int]) -> list[str]:
    """Ids of the boxes outside the moving part of `seeds`, in the build's order: the ones a focused run holds
    immovable. Empty when there are no seeds (nothing to focus on: the whole build moves)."""
    part = moving_part(boxes, contacts, seeds)
    if not part:
        return []
    return [b.id for k, b in enumerate(boxes) if k not in part]
