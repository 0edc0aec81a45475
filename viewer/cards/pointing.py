"""Card games played by pointing: the one controller behind the play window and the game page.

A position's legal moves (`state.legal_moves()`, nothing else) become *click paths*: the things on the table a
person clicks, in order, to make each move: a card of the hand, then a pawn, a partner card, a side of a row, a
pile, and, where a card leaves a choice, the choice (a second pawn, a count on a chip). `CardTable` holds the
paths of one position with the spots they click and why each card of the hand that has no move cannot be played
(in the game's words, from `state.explain`). `CardPointer` walks them:

    table = card_table(state, player)    # once per position (viewer/cards/clickpaths.py knows each game's table)
    pointer = CardPointer(table)
    pointer.click(key)   # a spot clicked -> the move text to play, or None (the choice so far, or why not, in
                         # `pointer.message`)
    pointer.point(key)   # the pointer is over a spot: `pointer.words()` says what a click there does
    pointer.targets()    # the spots that may be clicked next (lit on the table)
    pointer.decorate(scene)  # the scene with the chosen card lifted, the targets lit, the hovered one blue

The rules of the walk: a click on a card of the hand lifts it and lights its targets; a click on a lit target
that leaves one move plays it (so a card and a target are two clicks); a lit target that leaves several moves is
chosen too and lights the next choice (three clicks with one choice); a card with one move also plays on a
second click on itself; the first click never plays. A click on a card that has no move says why. The browser
has the same walk in `static/js/cardpoint.js`, fed with `CardTable.to_json()`; a test checks both answer alike.

Spots are drawn without new scene layers: a lit spot gets a thin halo block under it (`spot:KEY:N` ids, in the
block layer, so picking and both renderers need nothing new); a chip (a choice with no thing on the table, such
as a count) is a small card that appears, labelled, in the game's chip row while it is lit (a chip of a first
choice, like Diabolo's *double* and *keep*, stays in its place, unlit, while the other is chosen).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from viewer.scene import ALL_RGB, Scene, SceneBlock, SceneLabel

LIFT = 1.2  # grid units a chosen card of the hand rises
HOVER_LABEL = 2.2  # grid units above the place pointed at where the words of a click there are written
HALO = 0.32  # how far a halo reaches beyond what it rings
CHIP_HEIGHT = 0.2  # a chip is a small square card this thick
SLOT_HEIGHT = 0.1  # an empty place lit: a plate, thinner than a card, so it never reads as one
#: palette names (viewer.scene.EXTRA_RGB) of a lit spot, the one under the pointer, and a chosen one
LIT, LIT_HOVER, PICKED = "lit", "lit-hover", "picked"


@dataclass(frozen=True)
class Spot:
    """Something on the table a click chooses: scene blocks (`items`, by id) and pawns (`figures`, indices into
    `scene.figures`) that are it, or a chip (`text`) drawn in the chip row while lit. `label` says what it is."""

    key: str
    label: str
    items: tuple[str, ...] = ()
    figures: tuple[int, ...] = ()
    text: str = ""
    box: tuple[float, ...] = ()  # (x, y, z, sx, sy, sz): a place with nothing in it yet, drawn while lit

    @property
    def chip(self) -> bool:
        return not self.items and not self.figures and not self.box


@dataclass
class CardTable:
    """One position's click paths: `moves` (text, words) in legal order, `paths` (move index, spot keys in click
    order; a move may have several), the `spots`, `why` (a hand card's spot -> why it cannot be played now),
    `hint` (what to click first), `chips` (x, y, z of the first chip, the step to the next along x, and a chip's
    width: chips lie in a row, in the order of `spots`)."""

    spots: dict[str, Spot]
    moves: list[tuple[str, str]]
    paths: list[tuple[int, tuple[str, ...]]]
    why: dict[str, str] = field(default_factory=dict)
    hint: str = ""
    chips: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 1.8, 1.4)

    def to_json(self) -> dict[str, Any]:
        return {"spots": [{"key": s.key, "label": s.label, "items": list(s.items), "figures": list(s.figures),
                           "text": s.text, "box": list(s.box)} for s in self.spots.values()],
                "moves": [list(m) for m in self.moves], "paths": [[i, list(p)] for i, p in self.paths],
                "why": dict(self.why), "hint": self.hint, "chips": list(self.chips),
                # the colours the pointer draws with, which the scene's own palette may not name
                "palette": {name: list(ALL_RGB[name]) for name in (LIT, LIT_HOVER, PICKED, "card")}}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> CardTable:
        spots = {s["key"]: Spot(s["key"], s["label"], tuple(s["items"]), tuple(s["figures"]), s["text"],
                                tuple(s["box"])) for s in doc["spots"]}
        return cls(spots, [tuple(m) for m in doc["moves"]], [(i, tuple(p)) for i, p in doc["paths"]],
                   dict(doc["why"]), doc["hint"], tuple(doc["chips"]))  # type: ignore[arg-type]

    def spots_at(self, layer: str, index: int, scene: Scene) -> list[str]:
        """The spots drawn at item `index` of `layer` (as the renderers' picking names it) in `scene` (a base slot
        may be both "bring a pawn out" and "your partner"); the pointer picks the one that counts now."""
        if layer == "figures":
            return [s.key for s in self.spots.values() if index in s.figures]
        if layer != "blocks" or not 0 <= index < len(scene.blocks):
            return []
        block = scene.blocks[index].id
        if block.startswith("spot:"):
            return [block[5:].rsplit(":", 1)[0]]
        return [s.key for s in self.spots.values() if block in s.items]


class CardPointer:
    """The walk over one `CardTable`: what has been chosen, what is lit, what a click does."""

    def __init__(self, table: CardTable) -> None:
        self.table = table
        self.chosen: list[str] = []
        self.hover: str | None = None
        self.message = ""

    # --- reading the paths -----------------------------------------------------------------------------------
    def _matching(self, chosen: list[str]) -> list[int]:
        n = len(chosen)
        return [k for k, (_, p) in enumerate(self.table.paths) if len(p) >= n and list(p[:n]) == chosen]

    def _moves(self, paths: list[int]) -> list[int]:
        return sorted({self.table.paths[k][0] for k in paths})

    def _next(self, chosen: list[str]) -> dict[str, list[int]]:
        """Spot key -> the paths it continues, for the spots that may be clicked after `chosen`."""
        out: dict[str, list[int]] = {}
        n = len(chosen)
        for k in self._matching(chosen):
            p = self.table.paths[k][1]
            if len(p) > n:
                out.setdefault(p[n], []).append(k)
        return out

    def targets(self) -> list[str]:
        """The spots lit now: what may be clicked next (after a card with one move: its one target)."""
        return list(self._next(self.chosen))

    def settled(self) -> int | None:
        """The move the choices so far leave, if only one (index into `table.moves`)."""
        if not self.chosen:
            return None
        moves = self._moves(self._matching(self.chosen))
        return moves[0] if len(moves) == 1 else None

    def current(self) -> int | None:
        """The move a click would play now: the one the spot under the pointer settles, else the one the choices
        settle (previewed on the table by the window)."""
        if self.hover is not None:
            nxt = self._next(self.chosen)
            if self.hover in nxt:
                moves = self._moves(nxt[self.hover])
                if len(moves) == 1:
                    return moves[0]
        return self.settled()

    def _label(self, key: str) -> str:
        spot = self.table.spots.get(key)
        return spot.label if spot is not None else key

    # --- acting --------------------------------------------------------------------------------------------------
    def reset(self) -> None:
        self.chosen = []
        self.message = ""

    def click(self, key: str | None) -> str | None:
        """A click on spot `key` (None: on nothing). The move text to play, or None (then `message` says what
        was chosen, what to click next, or why not)."""
        self.message = ""
        if key is None:
            if self.chosen:
                self.message = f"put back: {self._label(self.chosen[0])}"
            self.chosen = []
            return None
        if self.chosen and key == self.chosen[-1]:
            settled = self.settled()
            if settled is not None:
                return self._play(settled)
            self.chosen.pop()  # a choice with several moves, clicked again: put it back
            self.message = f"put back: {self._label(key)}"
            return None
        nxt = self._next(self.chosen)
        if key in nxt:
            self.chosen.append(key)
            moves = self._moves(nxt[key])
            if len(moves) == 1 and len(self.chosen) >= 2:
                return self._play(moves[0])
            self.message = self.status()
            return None
        if key in self.chosen:  # an earlier choice: back to it
            self.chosen = self.chosen[:self.chosen.index(key) + 1]
            self.message = self.status()
            return None
        if self.chosen and key in self._next([]):  # another card (or first choice): start again from it
            self.chosen = []
            return self.click(key)
        if key in self.table.why:
            self.chosen = []
            self.message = self.table.why[key]
            return None
        if self.chosen:
            self.message = self._refusal(key)
        else:
            self.message = self.table.hint or "choose a lit place"
        return None

    def _play(self, move: int) -> str:
        self.chosen = []
        self.hover = None
        self.message = ""
        return self.table.moves[move][0]

    def spot_at(self, layer: str, index: int, scene: Scene) -> str | None:
        """The spot a click at item `index` of `layer` of the shown `scene` means: of the spots drawn there, a lit
        one first, then a chosen one, then one a first click may choose."""
        keys = self.table.spots_at(layer, index, scene)
        for group in (self.targets(), self.chosen, list(self._next([]))):
            for k in keys:
                if k in group:
                    return k
        return keys[0] if keys else None

    def point(self, key: str | None) -> bool:
        """The pointer is over spot `key` (None: nothing that counts); True if what is shown changed."""
        before = self.hover
        self.hover = key
        return before != key

    # --- words ---------------------------------------------------------------------------------------------------
    def _lit_words(self, names: list[str]) -> str:
        """ "the lit place (A)", "a lit place (A, B, C, D and 2 more)"."""
        listed = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        return f"{'the lit place' if len(names) == 1 else 'a lit place'} ({listed})"

    def _refusal(self, key: str) -> str:
        """Why a click on `key`, which is not lit, does nothing now, and what to click instead."""
        lit = [self._label(k) for k in self.targets()]
        if lit:
            return f"{self._label(self.chosen[0])} cannot go to {self._label(key)}: click {self._lit_words(lit)}"
        return f"{self._label(key)} is not lit: click {self._label(self.chosen[-1])} again to play it"

    def status(self) -> str:
        """One line: what is chosen and what to click next."""
        if not self.table.moves:
            return ""
        if not self.chosen:
            return self.table.hint
        settled = self.settled()
        if settled is not None:
            lit = self.targets()
            where = "" if not lit else " or the lit place" if len(lit) == 1 else " or a lit place"
            return f"{self.table.moves[settled][1]} - click it again{where} to play it"
        n = len(self._moves(self._matching(self.chosen)))
        chosen = ", ".join(self._label(k) for k in self.chosen)
        return f"{chosen}: {n} moves - click a lit place ({', '.join(self._label(k) for k in self.targets()[:4])}" \
               + (" ..." if len(self.targets()) > 4 else "") + ")"

    def words(self, key: str | None = None) -> str:
        """What a click on `key` (default: the spot under the pointer) does, in words; "" where it does nothing."""
        key = self.hover if key is None else key
        if key is None:
            return ""
        nxt = self._next(self.chosen)
        if self.chosen and key == self.chosen[-1]:
            settled = self.settled()
            return f"click to play: {self.table.moves[settled][1]}" if settled is not None \
                else f"click to put back {self._label(key)}"
        if key in nxt:
            moves = self._moves(nxt[key])
            if len(moves) == 1:
                said = self.table.moves[moves[0]][1]
                if self.chosen:
                    return f"click to play: {said}"
                spot = self.table.spots.get(key)
                return said if spot is not None and spot.chip else f"{self._label(key)}: {said}"
            return f"{self._label(key)}: then choose on the table ({len(moves)} ways)"
        root = self._next([])
        if key in root:
            moves = self._moves(root[key])
            return f"{self._label(key)}: " + (self.table.moves[moves[0]][1] if len(moves) == 1
                                              else f"{len(moves)} moves")
        if key in self.table.why:
            return self.table.why[key]
        return ""

    # --- drawing -------------------------------------------------------------------------------------------------
    def decorate(self, scene: Scene) -> Scene:
        """`scene` with the walk drawn in: the chosen cards of the hand lifted and outlined, a halo under every
        other chosen spot (gold) and under every lit one (green; blue under the pointer), lit chips in the chip
        row with their labels, the hovered block outlined and, beside a place on the board pointed at, what a
        click there does."""
        spots = self.table.spots
        lit = self.targets()
        lifted: set[str] = set()
        for key in self.chosen:
            spot = spots.get(key)
            if spot is not None:
                lifted.update(i for i in spot.items if i.startswith("hand-"))
        blocks = [replace(b, origin=(b.origin[0], b.origin[1], b.origin[2] + LIFT), selected=True)
                  if b.id in lifted else b for b in scene.blocks]
        by_id = {b.id: b for b in blocks}
        extra: list[SceneBlock] = []
        labels: list[SceneLabel] = []
        order = {k: n for n, k in enumerate(spots)}
        lit = sorted(lit, key=lambda k: order.get(k, -1))
        # a chip a first click may choose stays in the row (unlit) while another is chosen, as the other cards of
        # the hand do; each chip keeps its place in the row
        first = [k for k in self._next([]) if k in spots and spots[k].chip]
        shown = list(dict.fromkeys([*self.chosen, *lit, *first]))
        chip_slot = {k: n for n, k in enumerate(sorted((k for k in shown if k in spots and spots[k].chip),
                                                         key=lambda k: order[k]))}
        for key in shown:
            spot = spots.get(key)
            if spot is None:
                continue
            colour = LIT_HOVER if key == self.hover and key in lit else PICKED if key in self.chosen \
                else LIT if key in lit else "card"
            if spot.chip:
                x, y, z, step, width = self.table.chips
                x0 = x + chip_slot[key] * step
                extra.append(SceneBlock(f"spot:{key}:0", (x0, y, z), (width, width, CHIP_HEIGHT),
                                        ("card",) * 4 + (colour, "card")))
                labels.append(SceneLabel((x0 + width / 2, y + width / 2, z + CHIP_HEIGHT + 0.05), spot.text))
                continue
            if spot.box:  # an empty place: a flat plate where the card would lie, in the lit colour
                x, y, z, sx, sy, _sz = spot.box
                extra.append(SceneBlock(f"spot:{key}:slot", (x, y, z), (sx, sy, SLOT_HEIGHT), (colour,) * 6))
            boxes = [(b.origin, b.size) for i in spot.items if (b := by_id.get(i)) is not None
                     and i not in lifted]
            for f in spot.figures:
                if 0 <= f < len(scene.figures):
                    fig = scene.figures[f]
                    r = 0.45 * fig.scale  # wider than the pawn's foot: the ring shows round it
                    boxes.append(((fig.cell[0] + 0.5 - r, fig.cell[1] + 0.5 - r, fig.cell[2]), (2 * r, 2 * r, 0.1)))
            for n, (origin, size) in enumerate(boxes):
                extra.append(SceneBlock(f"spot:{key}:{n}",
                                        (origin[0] - HALO, origin[1] - HALO, origin[2] - 0.05),
                                        (size[0] + 2 * HALO, size[1] + 2 * HALO, 0.16), (colour,) * 6))
        hover = scene.hover
        if self.hover is not None and (self.hover in lit or self.hover in self.chosen):
            spot = spots.get(self.hover)
            hover = next((i for i in spot.items if i in by_id), hover) if spot is not None else hover
            # what a click there does, in words, beside the place pointed at
            # (not over a card of the hand or a chip: it would cover their neighbours in the row, and the status
            # line says the same words)
            at = next((b for b in extra if b.id.startswith(f"spot:{self.hover}:")), None)
            said = self.words()
            if at is not None and said and not _in_row(spot):
                labels.append(SceneLabel((at.origin[0] + at.size[0] / 2, at.origin[1] + at.size[1] / 2,
                                          at.origin[2] + HOVER_LABEL), said))
        return replace(scene, blocks=blocks + extra, labels=scene.labels + labels, hover=hover)


def _in_row(spot: Spot | None) -> bool:
    """Whether `spot` lies in a row of its kind: a card of the hand or a chip."""
    return spot is None or spot.chip or any(i.startswith("hand-") for i in spot.items)
