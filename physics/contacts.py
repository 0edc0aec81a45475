"""Contacts between touching axis-aligned boxes and the table, as corner points of inset contact rectangles."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from physics.model import Box

#: Two faces closer than this (metres) touch. Grid positions are multiples of 0.02 m computed in floating point
#: (3 * 0.02 = 0.06000000000000001), so exact equality fails; 1 micrometre is far below any real gap.
TOUCH_TOL_M = 1e-6
#: Index used for the table (the fixed plane z = 0) in contact lists.
TABLE = -1


@dataclass(frozen=True)
class Contact:
    """One contact rectangle: body `b` rests on / is pushed by body `a` (`a` may be TABLE).

    `axis` is the contact normal (0 = x, 1 = y, 2 = z; the force on `b` points along +axis). `rect` is the
    overlap rectangle in the two other coordinates (ascending axis order) before the inset, in metres.
    """

    a: int
    b: int
    axis: int
    plane: float
    rect: tuple[float, float, float, float]

    @property
    def area(self) -> float:
        return (self.rect[1] - self.rect[0]) * (self.rect[3] - self.rect[2])


#: Up to this many boxes the contacts come from all n^2 pairs at once (numpy, fastest for small builds); beyond it
#: from a sweep along one axis, which tests only pairs whose extents overlap (2,000 blocks: 0.65 s -> ~0.05 s).
DENSE_MAX_BOXES = 160


def find_contacts(boxes: Sequence[Box]) -> list[Contact]:
    """All face contacts with positive overlap area: tops on bottoms, bottoms on the table, sides on sides.

    Order: table contacts by box, then tops on bottoms, +x on -x and +y on -y faces, each by (a, b)."""
    n = len(boxes)
    if n == 0:
        return []
    lo = np.array([b.lo for b in boxes], dtype=float)
    hi = lo + np.array([b.size for b in boxes], dtype=float)
    contacts: list[Contact] = []
    for j in np.flatnonzero(np.abs(lo[:, 2]) < TOUCH_TOL_M):
        contacts.append(Contact(TABLE, int(j), 2, 0.0, (lo[j, 0], hi[j, 0], lo[j, 1], hi[j, 1])))
    if n > DENSE_MAX_BOXES:
        return contacts + _swept_contacts(lo, hi)
    for axis in (2, 0, 1):
        others = [k for k in range(3) if k != axis]
        # touching[i, j]: the +axis face of i lies in the plane of the -axis face of j
        touching = np.abs(hi[:, axis][:, None] - lo[:, axis][None, :]) < TOUCH_TOL_M
        olo = [np.maximum(lo[:, k][:, None], lo[:, k][None, :]) for k in others]
        ohi = [np.minimum(hi[:, k][:, None], hi[:, k][None, :]) for k in others]
        overlapping = ((ohi[0] - olo[0]) > TOUCH_TOL_M) & ((ohi[1] - olo[1]) > TOUCH_TOL_M)
        for i, j in zip(*np.nonzero(touching & overlapping), strict=True):
            if i == j:
                continue
            rect = (olo[0][i, j], ohi[0][i, j], olo[1][i, j], ohi[1][i, j])
            contacts.append(Contact(int(i), int(j), axis, float(hi[i, axis]), tuple(map(float, rect))))
    return contacts


def resting_on(contacts: Iterable[Contact]) -> dict[int, set[int]]:
    """Per box that rests on something, what it rests on: the boxes under its bottom face, TABLE for the table."""
    under: dict[int, set[int]] = {}
    for c in contacts:
        if c.axis == 2:
            under.setdefault(c.b, set()).add(c.a)
    return under


def _candidate_pairs(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unordered pairs (p, q) of boxes whose closed extents, grown by TOUCH_TOL_M, meet on all three axes.

    Sweep and prune along the axis on which the build is widest (in box sizes): boxes sorted by their low end,
    each paired with the boxes that start before its high end; the other two axes filter the pairs."""
    sizes = (hi - lo).mean(axis=0)
    axis = int(np.argmax((hi.max(axis=0) - lo.min(axis=0)) / sizes))
    order = np.argsort(lo[:, axis], kind="stable")
    start = lo[order, axis]
    end = np.searchsorted(start, hi[order, axis] + TOUCH_TOL_M, side="right")
    counts = end - np.arange(len(order)) - 1
    first = np.repeat(np.arange(len(order)), counts)
    # second index: first + 1, first + 2, ... up to end - 1 (a ramp restarted for each first)
    ramp = np.arange(len(first)) - np.repeat(np.cumsum(counts) - counts, counts)
    p, q = order[first], order[first + 1 + ramp]
    keep = np.ones(len(p), dtype=bool)
    for k in range(3):
        keep &= (lo[q, k] <= hi[p, k] + TOUCH_TOL_M) & (lo[p, k] <= hi[q, k] + TOUCH_TOL_M)
    return p[keep], q[keep]


def _swept_contacts(lo: np.ndarray, hi: np.ndarray) -> list[Contact]:
    """The box-on-box contacts of find_contacts from the candidate pairs only: the same contacts, with the same
    numbers, in the same order as the all-pairs computation."""
    p, q = _candidate_pairs(lo, hi)
    i_all, j_all = np.concatenate([p, q]), np.concatenate([q, p])  # both orders: i below / behind j
    contacts: list[Contact] = []
    for axis in (2, 0, 1):
        others = [k for k in range(3) if k != axis]
        i, j = i_all, j_all
        ok = np.abs(hi[i, axis] - lo[j, axis]) < TOUCH_TOL_M
        olo = [np.maximum(lo[i, k], lo[j, k]) for k in others]
        ohi = [np.minimum(hi[i, k], hi[j, k]) for k in others]
        ok &= ((ohi[0] - olo[0]) > TOUCH_TOL_M) & ((ohi[1] - olo[1]) > TOUCH_TOL_M)
        sel = np.flatnonzero(ok)
        sel = sel[np.lexsort((j[sel], i[sel]))]
        for s in sel.tolist():
            a, b = int(i[s]), int(j[s])
            rect = (olo[0][s], ohi[0][s], olo[1][s], ohi[1][s])
            contacts.append(Contact(a, b, axis, float(hi[a, axis]), tuple(map(float, rect))))
    return contacts


def contact_corners(contacts: Sequence[Contact], inset: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Corner points of each contact rectangle shrunk by `inset` on every side.

    Returns (contact index per corner, corner points (k, 3), normal axis per corner). A rectangle narrower than
    2 * inset shrinks to its mid-line (it can then carry no moment across that direction), never inverts.
    """
    k = len(contacts)
    if k == 0:
        return np.zeros(0, dtype=int), np.zeros((0, 3)), np.zeros(0, dtype=int)
    rect = np.array([c.rect for c in contacts], dtype=float)
    axis = np.array([c.axis for c in contacts], dtype=int)
    plane = np.array([c.plane for c in contacts], dtype=float)
    lo_, hi_ = rect[:, 0::2], rect[:, 1::2]  # (k, 2): the two in-plane spans
    a, b = lo_ + inset, hi_ - inset
    thin = a > b
    mid = (lo_ + hi_) / 2
    a, b = np.where(thin, mid, a), np.where(thin, mid, b)
    # corners (u, v) in the order (a0, a1), (a0, b1), (b0, a1), (b0, b1)
    u = np.stack([a[:, 0], a[:, 0], b[:, 0], b[:, 0]], axis=1).ravel()
    v = np.stack([a[:, 1], b[:, 1], a[:, 1], b[:, 1]], axis=1).ravel()
    ax = np.repeat(axis, 4)
    pts = np.empty((4 * k, 3))
    rows = np.arange(4 * k)
    first = np.where(ax == 0, 1, 0)  # the lower of the two in-plane coordinates
    second = np.where(ax == 2, 1, 2)
    pts[rows, ax] = np.repeat(plane, 4)
    pts[rows, first] = u
    pts[rows, second] = v
    return np.repeat(np.arange(k), 4), pts, ax
