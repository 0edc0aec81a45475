"""The Partners board, in the rule text's order: seats and teams, pawns in their bases, the counted track with each
seat's home, walls, captures, and the finish zones.

Locations are small ints so that copies and move generation stay cheap:

- ``BASE`` (-1): the pawn waits in its owner's base.
- ``0 .. T-1``: the counted track spaces, ``T = SECTION x players``. Seat ``q``'s first counted space is
  ``SECTION q``.
- ``T + q``: seat ``q``'s home. It lies between spaces ``SECTION q - 1`` and ``SECTION q`` and is never counted.
- ``T + N + FINISH p + d``: seat ``p``'s finish zone, ``d = 0`` at the entrance (the text's case 4, the largest)
  to ``d = 3`` at the dead end (the text's case 1, the first one to fill).

A position is the list ``loc`` of every pawn's location (pawn ``i`` belongs to seat ``i // PAWNS_PER_PLAYER``).
`Track` knows the board of one table size and answers questions about a ``loc``; it holds no position itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from tower.games.errors import BadInput

# --- seats, teams and pawns ---------------------------------------------------------------------------------------
#: Seat colours in clockwise order; partners sit opposite (4 players: yellow+blue against red+green).
COLOURS = ("yellow", "red", "blue", "green", "purple", "orange")
LETTERS = "yrbgpo"
PAWNS_PER_PLAYER = 4
BASE = -1

# --- the track (a standing ruling: sections of 16 counted spaces, finish zones of 4) -----------------------------
SECTION = 16
FINISH = 4


def pawn_name(pawn: int) -> str:
    return f"{LETTERS[pawn // PAWNS_PER_PLAYER]}{pawn % PAWNS_PER_PLAYER + 1}"


def parse_pawn(text: str) -> int:
    text = text.strip().lower()
    if len(text) != 2 or text[0] not in LETTERS or text[1] not in "1234":
        raise BadInput(f"bad pawn {text!r} (a colour letter {'/'.join(LETTERS)} and 1-4, like y2)", "$.pawns")
    return LETTERS.index(text[0]) * PAWNS_PER_PLAYER + int(text[1]) - 1


# --- why a walk fails (cheap codes while searching; messages for people) ------------------------------------------
E_BASE, E_PLACED, E_NO_BOUNCE, E_WALL, E_JUMP, E_WALL_BACK, E_STACK = range(-10, -3)
WALK_ERRORS = {
    E_BASE: ("in-base", "{p} is in its base: only a card with the heart brings it out"),
    E_PLACED: ("finish-order", "{p} has reached its place in the finish zone and cannot move any more"),
    E_NO_BOUNCE: ("finish-order", "{p} cannot go that far into the finish zone: no pawn jumps another there, "
                  "and a part of a 7 never backs up"),
    E_WALL: ("wall", "{p} cannot pass a home with its owner's pawn on it: that is a wall"),
    E_JUMP: ("finish-order", "{p} would jump a pawn in the finish zone"),
    E_WALL_BACK: ("wall", "{p} cannot pass that wall backwards: only the wall's owner may"),
    E_STACK: ("stack", "{p} cannot land on a space holding two or more pawns (passing it is fine)"),
}


def walk_error(code: int, pawn: int) -> tuple[str, str]:
    rule, text = WALK_ERRORS[code]
    return rule, text.format(p=pawn_name(pawn))


class Track:
    """The board of a table of `players` seats (shared by every copy of a game: it never changes)."""

    def __init__(self, players: int, home_stack: bool = True) -> None:
        self.players = players
        self.size = SECTION * players  # counted spaces
        self.fin = self.size + players  # the first finish-zone location
        self.pawns = PAWNS_PER_PLAYER * players
        #: option `home_stack`: a second own pawn coming out stands with the first on the home
        self.home_stack = home_stack
        #: the next SECTION - 1 counted spaces after each counted space, going round
        self._ahead = [tuple((here + i) % self.size for i in range(1, SECTION)) for here in range(self.size)]

    # --- seats and teams ------------------------------------------------------------------------------------------
    def partner(self, player: int) -> int:
        return (player + self.players // 2) % self.players

    def team_of(self, player: int) -> int:
        return player % (self.players // 2)

    def teams(self) -> list[list[int]]:
        half = self.players // 2
        return [[t, t + half] for t in range(half)]

    # --- places -------------------------------------------------------------------------------------------------
    def home(self, seat: int) -> int:
        return self.size + seat

    def finish(self, seat: int, depth: int = 0) -> int:
        return self.fin + FINISH * seat + depth

    def in_finish(self, where: int) -> bool:
        return where >= self.fin

    def where_text(self, where: int) -> str:
        """A location as people say it: base, space 1..64 (yellow's first space is 1), home-r, finish-y1."""
        t = self.size
        if where == BASE:
            return "base"
        if where < t:
            return str(where + 1)
        if where < self.fin:
            return f"home-{LETTERS[where - t]}"
        seat, depth = divmod(where - self.fin, FINISH)
        return f"finish-{LETTERS[seat]}{FINISH - depth}"  # the text's numbering: 1 is the deepest case

    def relative(self, pawn: int, where: int) -> float:
        """How far a pawn at `where` has come: 0 own home, 1..64 counted spaces, 65..68 finish, -1 base."""
        owner = pawn // PAWNS_PER_PLAYER
        t = self.size
        if where == BASE:
            return -1
        if where >= self.fin:
            return t + 1 + (where - self.finish(owner))
        if where >= t:  # someone's home: half a space before that seat's first counted space
            q = where - t
            return 0 if q == owner else (SECTION * (q - owner)) % t + 0.5
        return (where - SECTION * owner) % t + 1

    # --- who moves what -------------------------------------------------------------------------------------------
    def all_home(self, seat: int, loc: list[int]) -> bool:
        b = seat * PAWNS_PER_PLAYER
        fin = self.fin
        return loc[b] >= fin and loc[b + 1] >= fin and loc[b + 2] >= fin and loc[b + 3] >= fin

    def controlled_in(self, player: int, loc: list[int]) -> int:
        """Whose pawns `player` moves: his own, or his partner's once all his are in the finish."""
        b = player * PAWNS_PER_PLAYER
        fin = self.fin
        if loc[b] >= fin and loc[b + 1] >= fin and loc[b + 2] >= fin and loc[b + 3] >= fin:
            return (player + self.players // 2) % self.players
        return player

    # --- walls and the finish zone ----------------------------------------------------------------------------
    def wall(self, seat: int, loc: list[int]) -> bool:
        """A pawn of `seat` on its own home is a wall."""
        h = self.size + seat
        b = seat * PAWNS_PER_PLAYER
        return h in (loc[b], loc[b + 1], loc[b + 2], loc[b + 3])

    def blocked(self, pawn: int, loc: list[int]) -> bool:
        """In the finish with every deeper space filled: the pawn has reached its place for good."""
        where = loc[pawn]
        f = self.finish(pawn // PAWNS_PER_PLAYER)
        if where < f or where >= f + FINISH:
            return False
        for x in range(where + 1, f + FINISH):
            if x not in loc:
                return False
        return True

    # --- leaving the base -----------------------------------------------------------------------------------------
    def leave(self, seat: int, loc: list[int], dry: bool = False) -> tuple[str, str] | None:
        """Bring `seat`'s lowest-numbered base pawn to its home (None if done, else the rule broken)."""
        first = seat * PAWNS_PER_PLAYER
        pawn = next((p for p in range(first, first + PAWNS_PER_PLAYER) if loc[p] == BASE), None)
        if pawn is None:
            return ("base-empty", f"{COLOURS[seat]} has no pawn left in its base")
        h = self.size + seat
        if dry:
            return None
        for i, w in enumerate(loc):
            if w == h and (i // PAWNS_PER_PLAYER != seat or not self.home_stack):
                loc[i] = BASE  # a stranger on the home (put there by a switch) is captured
        loc[pawn] = h
        return None

    # --- walking a pawn: the wall, the finish zone, captures ------------------------------------------------------
    def walk(self, loc: list[int], pawn: int, n: int, bounce: bool, dry: bool = False) -> int:
        """Walk `pawn` `n` spaces (backwards if negative) on `loc`: the destination, or an error code < 0.

        Unless `dry`, `loc` is updated, including a capture. `bounce`: in the finish zone a pawn that cannot go
        on forward backs up for the rest of the count (not for the parts of a 7).
        """
        here = loc[pawn]
        owner = pawn >> 2
        t = self.size
        if here == BASE:
            return E_BASE
        if here < t and (n < 0 or (here - SECTION * owner) % t + n < t):
            # the common case, on the track and not reaching the finish: at most one home is passed
            # (no count reaches 16), so arithmetic replaces the walk
            if n > 0:
                pos = here + n
                boundary = (here // SECTION + 1) * SECTION
                if pos >= t:
                    pos -= t
                if here + n >= boundary:
                    q = (boundary // SECTION) % self.players
                    if t + q in loc and self.wall(q, loc):
                        return E_WALL
            else:
                pos = here + n
                if pos < 0:
                    pos += t
                if here % SECTION < -n:
                    q = here // SECTION
                    if q != owner and t + q in loc and self.wall(q, loc):
                        return E_WALL_BACK
            if pos in loc:
                if loc.count(pos) >= 2:
                    return E_STACK
                if not dry:
                    loc[loc.index(pos)] = BASE  # captured: back to its base, whoever it belongs to
            if not dry:
                loc[pawn] = pos
            return pos
        pos = self.route(loc, pawn, n, bounce)
        if pos < 0:
            return pos
        if pos < t and pos in loc and loc.count(pos) - (pos == here) >= 2:
            return E_STACK
        if not dry:
            if pos < t and pos in loc:
                for i, w in enumerate(loc):
                    if w == pos:
                        loc[i] = BASE  # captured: back to its base, whoever it belongs to
            loc[pawn] = pos
        return pos

    def route(self, loc: list[int], pawn: int, n: int, bounce: bool, taken: int = -1) -> int:
        """Where `walk` takes a pawn leaving a home, or near or in its finish zone: the destination or an error
        code (landing on a stack is not checked here). `taken`: the owner's finish cases held, as bits (case
        depth d is bit d), if the caller knows them.

        Such a walk passes no home, so no wall: a count below SECTION - 1 (every card's) from a home stops short of
        the next one, and a pawn this close to its finish zone, or backing out of it, stays within the last section
        before its own home. So the walk is worked out by counting steps ``u`` from the owner's first counted space
        (``T - 1`` its last space, ``T .. T + 3`` its finish cases) instead of step by step.
        """
        here = loc[pawn]
        owner = pawn >> 2
        t = self.size
        if t <= here < self.fin:  # on a home: onto the track
            start = SECTION * (here - t)
            return (start + n - 1) % t if n > 0 else (start + n) % t
        f0 = self.fin + FINISH * owner
        if taken < 0:
            taken = (f0 in loc) | (f0 + 1 in loc) << 1 | (f0 + 2 in loc) << 2 | (f0 + 3 in loc) << 3
        if here >= f0:
            depth = here - f0
            taken &= ~(1 << depth)  # off the board while walking: it never blocks itself
            if taken >> depth + 1 == (1 << FINISH - 1 - depth) - 1:
                return E_PLACED  # every deeper case is taken: it has reached its place for good
            u = t + depth
        else:
            u = (here - SECTION * owner) % t
        if n > 0:
            top = t + FINISH - 1  # the farthest place going forward: the dead end, or just before a taken case
            for d in range(max(u - t + 1, 0), FINISH):
                if taken >> d & 1:
                    top = t + d - 1
                    break
            dest = u + n
            if dest > top:
                if not bounce:
                    return E_NO_BOUNCE
                dest = 2 * top - dest  # backs up the rest of the count
        else:
            dest = u + n
        # backing up inside the zone may not jump a pawn: every case from dest up to where the pawn started
        # is passed or landed on (the cases above it, up to where it turned, are free)
        if dest < u and taken:
            for d in range(max(dest - t, 0), u - t):
                if taken >> d & 1:
                    return E_JUMP
        return f0 + dest - t if dest >= t else (SECTION * owner + dest) % t

    def path(self, loc: list[int], pawn: int, k: int) -> tuple[Sequence[int], int | None]:
        """The spaces `pawn` reaches going 1..k forward without bouncing, and the occupied space or wall
        (a home) that cut the walk short (None if nothing did). Landing is not checked here."""
        here = loc[pawn]
        owner = pawn >> 2
        t = self.size
        if here < t and (here - SECTION * owner) % t + k < t:
            # on the track and not reaching the finish: at most one home is passed (k < SECTION), so
            # arithmetic replaces the walk
            boundary = (here // SECTION + 1) * SECTION
            q = (boundary // SECTION) % self.players
            if here + k >= boundary and self.wall(q, loc):
                return self._ahead[here][:boundary - here - 1], t + q
            return self._ahead[here][:k], None
        fin = self.fin
        f0 = fin + FINISH * owner
        last = (SECTION * owner - 1) % t
        cells: list[int] = []
        pos = here
        loc[pawn] = -2
        stop = None
        for _ in range(k):
            if pos >= fin:
                nxt = pos + 1
                if nxt == f0 + FINISH:
                    break
                if nxt in loc:
                    stop = nxt
                    break
            elif pos >= t:
                nxt = SECTION * (pos - t)
            elif pos == last:
                nxt = f0
                if f0 in loc:
                    stop = nxt
                    break
            else:
                nxt = pos + 1 if pos + 1 < t else 0
                if nxt % SECTION == 0 and self.wall(nxt // SECTION, loc):
                    stop = t + nxt // SECTION
                    break
            cells.append(nxt)
            pos = nxt
        loc[pawn] = here
        return cells, stop
