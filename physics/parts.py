"""Large builds judged by parts, ray by ray, with the same ray lengths as one LP over the whole build.

Sub-assemblies that touch only through the table are independent, and within one, pieces (boxes joined by
supports) that touch only through frictionless side contacts bound the ray from both sides (SplitProblem's
docstring; docs/physics.md, "At scale").
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from physics.contacts import TABLE, Contact
from physics.model import Box
from physics.tilt_lp import FRICTION_SIDES, INITIAL_DIRECTIONS, TiltProblem

#: Builds of more blocks than this are judged by parts (SplitProblem, docs/physics.md "At scale"); up to it, as one LP per
#: ray exactly as before (the start tower's LPs, pivots and results are unchanged).
SPLIT_MIN_BLOCKS = 64
#: Two ray lengths (load multipliers, order 1) this close count as equal when bounds are compared: LP noise is
#: ~1e-12, and 1e-9 in lambda is below 1e-7 degrees of tilt.
BOUND_TOL = 1e-9
#: Pieces (of distinct shapes) whose held bound is tried per ray before the sub-assembly's own LP decides.
MAX_HELD_TRIES = 8
#: The piece bounds are tried on a sub-assembly of at most MAX_PIECE_KINDS distinct piece shapes, at most
#: PIECE_REPEAT of its pieces (repeated shapes: slabs, walls, rows of towers share their LPs) and no piece over
#: half of it; otherwise (random piles: 40-90 % distinct pieces, measured) the bounds cost more than they save.
MAX_PIECE_KINDS = 48
PIECE_REPEAT = 0.25

_INF = math.inf


def _groups(n: int, pairs: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Connected components of n nodes joined by pairs, each as ascending indices, by smallest member."""
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in pairs:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    out: dict[int, list[int]] = {}
    for i in range(n):
        out.setdefault(root(i), []).append(i)
    return list(out.values())


def _q(v: float) -> int:
    """A length or mass ratio quantised for shape keys (1 nm; well below TOUCH_TOL_M)."""
    return round(v * 1e9)


@dataclass
class _Piece:
    """Boxes (build indices) that hang together through supports, with their contacts renumbered for their own
    LP (the piece's boxes 0.. in build order, then the held neighbours n.. for the held LP)."""

    boxes: list[int]
    own: list[Contact]  # among its boxes and with the table
    held: list[Contact]  # side contacts with other pieces' boxes (renumbered n, n + 1, ...)
    neighbours: list[int]  # build indices of those boxes
    key: tuple
    held_key: tuple


class SplitProblem:
    """A large build judged by parts, ray by ray: the same ray lengths as one LP over the whole build.

    Sub-assemblies that touch only through the table are independent: C is the intersection of their load sets,
    so r(d) = min over sub-assemblies. Within one, the pieces (boxes joined by supports: tops on bottoms) touch
    through frictionless side contacts only, and two bounds often pin r(d) without its LP:
    - lower: every piece standing alone under the load (side forces zero) is a solution of the whole, so
      r(d) >= L = min over pieces of r_alone(d), provided each piece alone also holds L (its smallest load <= L);
    - upper: a piece whose side neighbours are held in place (their contacts push on it for free) can only do
      better than in the build, so r(d) <= r_held(d) for any piece.
    A piece attaining L whose held bound is L too proves r(d) = L. Identical pieces (the same shape up to a shift
    in the plane) share their LPs. When the bounds do not meet, the sub-assembly's own LP decides (skipped when
    its lower bound already exceeds the smallest ray found).
    """

    _key = staticmethod(TiltProblem._key)
    sides = FRICTION_SIDES  # of the friction pyramid (TiltProblem.initial_rays groups its chains by them)

    def __init__(self, boxes: Sequence[Box], mu: float, inset: float, contacts: list[Contact]) -> None:
        self.boxes, self.mu, self.inset, self.contacts = list(boxes), mu, inset, contacts
        self.n = len(self.boxes)
        self.lps = 0
        self._lock = threading.Lock()
        self._whole: TiltProblem | None = None
        self._problems: dict[tuple, TiltProblem] = {}
        self._rays: dict[tuple, tuple[float | None, np.ndarray | None]] = {}
        self._lowest: dict[tuple, float | None] = {}
        # sub-assemblies whose piece bounds failed, by pyramid turn: the next rays solve them whole
        self._no_bounds: dict[int, set[float]] = {}
        self._chain_turns = {self._key(2 * math.pi * k / INITIAL_DIRECTIONS) for k in range(INITIAL_DIRECTIONS)}
        self._parts_lock = threading.Lock()
        self.assemblies: list[list[int]] = []
        self.pieces: list[_Piece] = []
        self.pieces_of: list[list[int]] = []

    def _split(self) -> None:
        """Find the sub-assemblies and pieces (on the first ray: a build that provably falls never needs them)."""
        with self._parts_lock:
            if not self.assemblies:
                self._split_now()

    def _split_now(self) -> None:
        contacts = self.contacts
        mean_mass = float(np.mean([b.mass for b in self.boxes]))
        self._shape = [(_q(b.lo[2]), _q(b.size[0]), _q(b.size[1]), _q(b.size[2]), _q(b.mass / mean_mass * 1e-3))
                       for b in self.boxes]
        touching = [(c.a, c.b) for c in contacts if c.a != TABLE]
        piece_of = [0] * self.n
        pieces = _groups(self.n, [(c.a, c.b) for c in contacts if c.a != TABLE and c.axis == 2])
        for p, members in enumerate(pieces):
            for i in members:
                piece_of[i] = p
        own: list[list[Contact]] = [[] for _ in pieces]
        cross: list[list[Contact]] = [[] for _ in pieces]
        for c in contacts:
            if c.a == TABLE or piece_of[c.a] == piece_of[c.b]:
                own[piece_of[c.b]].append(c)
            else:
                cross[piece_of[c.a]].append(c)
                cross[piece_of[c.b]].append(c)
        self.pieces = [self._piece(m, own[p], cross[p]) for p, m in enumerate(pieces)]
        assemblies = _groups(self.n, touching)
        self.pieces_of = [sorted({piece_of[i] for i in a}) for a in assemblies]
        self.assemblies = assemblies  # last: other threads wait for it

    def _piece(self, members: list[int], own: list[Contact], cross: list[Contact]) -> _Piece:
        local = {i: k for k, i in enumerate(members)}
        x0, y0 = min(self.boxes[i].lo[0] for i in members), min(self.boxes[i].lo[1] for i in members)

        def renumber(c: Contact, index: dict[int, int]) -> Contact:
            return Contact(TABLE if c.a == TABLE else index[c.a], index[c.b], c.axis, c.plane, c.rect)

        own_r = [renumber(c, local) for c in own]
        index = dict(local)
        neighbours: list[int] = []
        for c in cross:
            for i in (c.a, c.b):
                if i not in index:
                    index[i] = len(members) + len(neighbours)
                    neighbours.append(i)
        held = [renumber(c, index) for c in cross]
        key = tuple(self._shape[i] + (_q(self.boxes[i].lo[0] - x0), _q(self.boxes[i].lo[1] - y0)) for i in members)

        def shifted(c: Contact) -> tuple:
            # rect coordinates are (x, y), (y, z) or (x, z) by axis; shift the x and y ones
            if c.axis == 2:
                r = (c.rect[0] - x0, c.rect[1] - x0, c.rect[2] - y0, c.rect[3] - y0)
                plane = c.plane
            elif c.axis == 0:
                r = (c.rect[0] - y0, c.rect[1] - y0, c.rect[2], c.rect[3])
                plane = c.plane - x0
            else:
                r = (c.rect[0] - x0, c.rect[1] - x0, c.rect[2], c.rect[3])
                plane = c.plane - y0
            side = c.b < len(members)  # the piece is pushed along +axis (else along -axis)
            return (c.axis, side, _q(plane), *map(_q, r))

        held_key = (key, tuple(sorted(shifted(c) for c in held)))
        return _Piece(members, own_r, held, neighbours, key, held_key)

    # -- the LPs, shared by identical parts ---------------------------------------------------------------------

    def _problem(self, kind: str, key: tuple, make) -> TiltProblem:
        with self._lock:  # one model per part for both chains: each warm-starts its own pyramid turn's LPs
            prob = self._problems.get((kind, key))
            if prob is None:
                prob = self._problems[(kind, key)] = make()
        return prob

    def _ray(self, kind: str, key: tuple, make, phi: float) -> tuple[float | None, np.ndarray | None]:
        k = (kind, key, phi)
        if k not in self._rays:
            self._rays[k] = self._problem(kind, key, make).ray(phi)
            with self._lock:
                self.lps += 1
        return self._rays[k]

    def _alone(self, p: _Piece, phi: float) -> tuple[float | None, np.ndarray | None]:
        return self._ray("alone", p.key, lambda: TiltProblem([self.boxes[i] for i in p.boxes], self.mu, self.inset,
                                                          p.own), phi)

    def _held(self, p: _Piece, phi: float) -> tuple[float | None, np.ndarray | None]:
        return self._ray("held", p.held_key, lambda: TiltProblem(
            [self.boxes[i] for i in p.boxes], self.mu, self.inset, p.own + p.held,
            held=[self.boxes[i] for i in p.neighbours]), phi)

    def _alone_lowest(self, p: _Piece, phi: float) -> float | None:
        k = (p.key, phi)
        if k not in self._lowest:
            prob = self._problem("alone", p.key, lambda: TiltProblem([self.boxes[i] for i in p.boxes], self.mu,
                                                                  self.inset, p.own))
            self._lowest[k] = prob.lowest(phi)
            with self._lock:
                self.lps += 1
        return self._lowest[k]

    def _assembly(self, a: int, phi: float) -> tuple[float | None, np.ndarray | None]:
        members = self.assemblies[a]

        def make() -> TiltProblem:
            local = {i: k for k, i in enumerate(members)}
            cs = [Contact(TABLE if c.a == TABLE else local[c.a], local[c.b], c.axis, c.plane, c.rect)
                  for c in self.contacts if c.b in local]
            return TiltProblem([self.boxes[i] for i in members], self.mu, self.inset, cs)

        return self._ray("assembly", self._assembly_key(a), make, phi)

    def _assembly_key(self, a: int) -> tuple:
        members = self.assemblies[a]
        x0, y0 = min(self.boxes[i].lo[0] for i in members), min(self.boxes[i].lo[1] for i in members)
        return tuple(self._shape[i] + (_q(self.boxes[i].lo[0] - x0), _q(self.boxes[i].lo[1] - y0)) for i in members)

    def _full(self, members: list[int], duals: np.ndarray | None) -> np.ndarray | None:
        """A part's equilibrium duals spread over the whole build's rows (zero elsewhere)."""
        if duals is None:
            return None
        out = np.zeros(6 * self.n)
        idx = (6 * np.asarray(members)[:, None] + np.arange(6)).ravel()
        out[idx] = duals[:6 * len(members)]
        return out

    # -- one ray ------------------------------------------------------------------------------------------------

    def _bounds(self, a: int, phi: float) -> tuple[float | None, tuple | None]:
        """(lower bound L or None when the pieces give none, the proof (r, duals, members) that r(d) = L or None)."""
        turn = self._key(phi)
        failed = self._no_bounds.setdefault(a, set())
        # a chain learns only from its own turn's rays (so the results do not depend on the threads); the
        # refinement rays, which run after both chains, from either
        if turn in failed or (failed and turn not in self._chain_turns):
            return None, None
        pieces = [self.pieces[p] for p in self.pieces_of[a]]
        kinds = {p.key: p for p in pieces}
        if len(pieces) > 1 and (len(kinds) > MAX_PIECE_KINDS or len(kinds) > len(pieces) * PIECE_REPEAT
                                or 2 * max(len(p.boxes) for p in pieces) > len(self.assemblies[a])):
            failed.add(turn)  # the pieces' LPs would cost about as much as the sub-assembly's
            return None, None
        alone = {key: self._alone(p, phi) for key, p in kinds.items()}
        if any(r is None for r, _ in alone.values()):
            failed.add(turn)
            return None, None
        low = min(r for r, _ in alone.values())
        if len(pieces) > 1 and any((self._alone_lowest(p, phi) or _INF) > low + BOUND_TOL for p in kinds.values()):
            failed.add(turn)
            return None, None  # a piece cannot hold L alone: no lower bound
        d = (math.cos(phi), math.sin(phi))
        weakest = [p for p in pieces if alone[p.key][0] <= low + BOUND_TOL]

        def help_from_neighbours(p: _Piece) -> int:
            # side contacts that push against the load: the likelier such a piece is held up by them
            return sum(1 for c in p.held if c.axis < 2 and (1 if c.b < len(p.boxes) else -1) * d[c.axis] < -1e-12)

        tried: set[tuple] = set()
        for p in sorted(weakest, key=help_from_neighbours):
            if not p.held:
                return low, (low, alone[p.key][1], p.boxes)
            if p.held_key in tried:
                continue
            if len(tried) >= MAX_HELD_TRIES:
                break
            tried.add(p.held_key)
            r, duals = self._held(p, phi)
            if r is not None and r <= low + BOUND_TOL:
                return low, (low, duals, p.boxes)
        failed.add(turn)  # the bounds did not meet: the next rays go straight to the sub-assembly's LP
        return low, None

    def ray(self, phi: float) -> tuple[float | None, np.ndarray | None]:
        """r(d) and the duals of the part that fails first (None, None when some part cannot take the load)."""
        self._split()
        best, proof = _INF, None
        open_: list[tuple[float, int]] = []
        for a in range(len(self.assemblies)):
            low, found = self._bounds(a, phi)
            if found is not None:
                if found[0] < best:
                    best, proof = found[0], (found[1], found[2])
            else:
                open_.append((-_INF if low is None else low, a))
        for low, a in sorted(open_):
            if low >= best:
                break  # every remaining part holds at least the smallest ray found
            r, duals = self._assembly(a, phi)
            if r is None:
                return None, None
            if r < best:
                best, proof = r, (duals, self.assemblies[a])
        if proof is None:
            return None, None
        return best, self._full(proof[1], proof[0])

    initial_rays = TiltProblem.initial_rays

    # -- falling builds: the whole build's LPs ------------------------------------------------------------------

    def whole(self) -> TiltProblem:
        if self._whole is None:
            self._whole = TiltProblem(self.boxes, self.mu, self.inset, self.contacts)
        return self._whole

    def rescue(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        out = self.whole().rescue()
        self.lps += 1
        return out

    def unbalanced(self) -> np.ndarray:
        out = self.whole().unbalanced()
        self.lps += 1
        return out

    mechanism = TiltProblem.mechanism
