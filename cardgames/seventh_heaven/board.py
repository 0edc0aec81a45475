"""The In 7th Heaven board and partners: the six partner colours, the track from the Garden Party to 7th Heaven
(its length a rule option) and its special spaces (a rule option too: jumps, and spaces that make or let the mover
swap his partner card), and how many partners each player plays.
"""

from __future__ import annotations

from dataclasses import dataclass

from tower.games.errors import BadInput

COLOURS = ("red", "blue", "grey", "yellow", "green", "pink")  # a standing ruling: the six partner colours
COLOUR_INDEX = {name: c for c, name in enumerate(COLOURS)}
PAIR_PLAYERS = 3  # with 2 or 3 players everybody plays two partners

START = 0  # the Garden Party
TRACK_LENGTH = 20  # a standing ruling: 7th Heaven is space 20 (option `track_length`)
MIN_TRACK = 15  # the shortest track the `track_length` option allows (the specials lie before 7th Heaven)
#: the special spaces (option `specials`): space:target jumps there (the first kiss 2 -> 5, Montmartre 6 -> 9, the
#: first quarrel 13 -> 10); space:must makes the mover swap his partner card (the dance in the disco), space:may
#: lets him (the carnival, the unlikely pair)
SPECIALS = "2:5,4:must,6:9,8:may,13:10,14:may"


@dataclass(frozen=True)
class Board:
    """The track of one game: where 7th Heaven is and what each special space does."""

    length: int
    jumps: dict[int, int]
    must_swap: frozenset[int]
    may_swap: frozenset[int]

    def special_text(self) -> str:
        """The specials as people read them: "2->5, 4 must swap, ..."."""
        parts = []
        for space in sorted({*self.jumps, *self.must_swap, *self.may_swap}):
            if space in self.jumps:
                parts.append(f"{space}->{self.jumps[space]}")
            else:
                parts.append(f"{space} {'must' if space in self.must_swap else 'may'} swap")
        return ", ".join(parts)


def make_board(length: int, specials: str) -> Board:
    """The board for the `track_length` and `specials` options; BadInput naming the option if a special is wrong."""
    jumps: dict[int, int] = {}
    must: set[int] = set()
    may: set[int] = set()
    for part in filter(None, (p.strip() for p in specials.split(","))):
        space, colon, what = part.partition(":")
        if not colon or not space.strip().isdecimal() or len(space.strip()) > 3:
            raise BadInput(f"special {part!r} must look like 2:5, 4:must or 8:may", "$.options.specials")
        where, what = int(space), what.strip()
        if not START < where < length:
            raise BadInput(f"special space {where} must lie between the Garden Party and 7th Heaven ({length})",
                           "$.options.specials")
        if where in jumps or where in must or where in may:
            raise BadInput(f"special space {where} is named twice", "$.options.specials")
        if what == "must":
            must.add(where)
        elif what == "may":
            may.add(where)
        elif what.isdecimal() and len(what) <= 3 and START <= int(what) < length and int(what) != where:
            jumps[where] = int(what)
        else:
            raise BadInput(f"special {part!r}: after the colon a space before 7th Heaven, must or may",
                           "$.options.specials")
    return Board(length, jumps, frozenset(must), frozenset(may))
