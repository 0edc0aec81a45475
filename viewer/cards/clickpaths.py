"""Each card game's click paths: what on the table a person clicks, in order, to make each legal move.

`card_table(state, player)` is the one entry: it reads the legal moves (`state.legal_moves()`), the player's view
and, for the cards of the hand that have no move, the game's own reason (`state.explain` of that card's plainest
move); nothing here decides what is legal. The spots refer to the scene's own blocks (by id) and pawns (by their
index in the scene's figures), as `viewer.cards.<game>` lays them out.

- In 7th Heaven: a card, then the pawn it moves (coloured, white and arrow cards, finger, foot), the partner card
  it takes (trade, heart; with 2-3 players then the own card handed over), a chip for a count (mushroom, foot),
  or the discard pile (a card without a target). After a special space: a partner card, or the *keep* chip.
- In Partners: a card, then the partner (the exchange), a pawn in the base or the home (bringing one out), the
  pawn it moves (a count chip where a card leaves two: the 1/14, the 8), the two pawns of the switch, or the
  parts of a 7, pawn and count after pawn and count; the middle to throw the hand away.
- In Diabolo: a card, then the side of its row (the next place there is lit), or the discard pile; the doubler
  question by the *double* / *keep* chips.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import permutations
from typing import Any

from viewer.cards.common import CARD_D, CARD_H, CARD_W
from viewer.cards.pointing import CardTable, Spot

#: 7 splits of more parts than this get no alternative orders (the listed order still works)
MAX_ORDERED_PARTS = 3


def card_table(state: Any, player: int) -> CardTable:
    """The click paths of `player`'s legal moves now (none when it is not that player's turn)."""
    view = state.view(player)
    mine = not state.is_over and state.current_player == player
    moves = state.legal_moves() if mine else []
    build = GAMES[state.layout]
    spots, path_of, hint, chips = build(state, player, view, moves)
    paths: list[tuple[int, tuple[str, ...]]] = []
    for i, m in enumerate(moves):
        paths += [(i, p) for p in path_of(m)]
    paths = _unambiguous(paths)
    words = [(str(m), state.move_words(m)) for m in moves]
    used = {p[0] for _, p in paths}
    why = {}
    for key, spot in spots.items():
        if key.startswith("card:") and key not in used:
            why[key] = _why(state, spot, mine, view)
    return CardTable(spots, words, paths, why, hint if mine else "", chips)


def _unambiguous(paths: list[tuple[int, tuple[str, ...]]]) -> list[tuple[int, tuple[str, ...]]]:
    """The paths, less the alternative spellings (a 7's parts in another order) that another move also has:
    each path leads to one move. A move's first path is its own and always stays."""
    makers: dict[tuple[str, ...], set[int]] = {}
    for i, p in paths:
        makers.setdefault(p, set()).add(i)
    out, seen, own = [], set(), set()
    for i, p in paths:
        first = i not in own
        own.add(i)
        if (p, i) in seen or (not first and len(makers[p]) > 1):
            continue
        seen.add((p, i))
        out.append((i, p))
    return out


def _why(state: Any, spot: Spot, mine: bool, view: dict[str, Any]) -> str:
    """Why the card of `spot` cannot be played now: the game's refusal of its plainest moves."""
    if not mine:
        cur = state.current_player
        return "the game is over" if cur is None else f"wait: it is {state.player_label(cur)}'s turn"
    reasons: list[str] = []
    for text in spot.text.split("|"):
        try:
            move = state.move_type.parse(text, state)
        except ValueError:
            continue
        err = state.explain(move)
        if err is not None and err.message not in reasons:
            reasons.append(err.message)
    said = "; ".join(reasons[:2]) or "none of its moves is legal now"
    return f"{spot.label} cannot be played now: {said}"


def _hand(view: dict[str, Any], label: Callable[[str], str], probes: Callable[[str], list[str]]) -> dict[str, Spot]:
    """A spot per card of the hand (`card:I`); its `text` holds the probe moves asked about when it has none."""
    return {f"card:{i}": Spot(f"card:{i}", label(c), (f"hand-{i}",), text="|".join(probes(c)))
            for i, c in enumerate(view.get("hand", []))}


def _cards(view: dict[str, Any], name: str) -> list[str]:
    return [f"card:{i}" for i, c in enumerate(view.get("hand", [])) if c == name]


# --- In 7th Heaven ------------------------------------------------------------------------------------------------
def _seventh(state: Any, player: int, view: dict[str, Any], moves: list[Any]):
    from cardgames.seventh_heaven.moves import TEXT_CARD_WORDS, card_words
    from viewer.cards.seventh_heaven import BESIDE, seventh_card_colour, seventh_partner_cards, seventh_pawns

    colours = list(view.get("pawns", {}))

    def probes(card: str) -> list[str]:
        return [f"play {card}"] + ([f"play {card} {colours[0]}"] if card.startswith("white") and colours else [])

    def named(card: str) -> str:  # "your red +3", "your card: the three cards"
        text = TEXT_CARD_WORDS.get(card)
        return f"your card: {text.split(':')[0]}" if text else f"your {card_words(card)}"

    spots = _hand(view, named, probes)
    length = int(view.get("track_length", 20))
    for i, (colour, *_xyz) in enumerate(seventh_pawns(view)):
        space = int(view["pawns"][colour])
        where = "in 7th Heaven" if space >= length else "at the start" if space <= 0 else f"on space {space}"
        spots[f"pawn:{colour}"] = Spot(f"pawn:{colour}", f"the {colour} pawn ({where})", figures=(i,))
    labels = view.get("labels") or [f"P{p}" for p in range(state.num_players)]
    for block, colour, holder, _x, _y in seventh_partner_cards(view):
        who = "beside the board" if holder == BESIDE else "yours" if holder == player else f"held by {labels[holder]}"
        spots[f"partner:{colour}"] = Spot(f"partner:{colour}", f"the {colour} partner card ({who})", (block,))
    spots["pile"] = Spot("pile", "the discard pile", ("discard",))
    for n in range(1, 5):
        spots[f"take:{n}"] = Spot(f"take:{n}", f"take {n} card{'s' if n > 1 else ''}", text=str(n))
    for n in range(1, 4):
        spots[f"step:{n}"] = Spot(f"step:{n}", f"{n} space{'s' if n > 1 else ''} forward", text=f"+{n}")
    spots["keep"] = Spot("keep", "keep your partner card", text="keep")

    def path(m: Any) -> list[tuple[str, ...]]:
        give = (f"partner:{m.give}",) if m.give else ()
        if m.verb == "keep":
            return [("keep",)]
        if m.verb == "swap":
            return [(f"partner:{m.colour}", *give)]
        cards = _cards(view, m.card)
        if m.verb == "discard":
            return [(c, "pile") for c in cards]
        if m.verb == "trade":
            return [(c, f"partner:{seventh_card_colour(m.card)}", *give) for c in cards]
        if m.card == "heart":
            return [(c, f"partner:{m.colour}", *give) if m.colour else (c, "pile") for c in cards]
        if m.card == "mushroom":
            return [(c, f"take:{m.n}") if m.n else (c, "pile") for c in cards]
        if m.card == "foot":
            return [(c, f"pawn:{m.colour}", f"step:{m.n}") if m.colour else (c, "pile") for c in cards]
        if m.card in ("finger", "cards3", "pepper", "snail", "cloud") or m.card.startswith("white"):
            return [(c, f"pawn:{m.colour}") if m.colour else (c, "pile") for c in cards]
        return [(c, f"pawn:{seventh_card_colour(m.card)}") for c in cards]  # a coloured number or arrow

    phase = view.get("phase")
    hint = {"swap": f"space {view.get('swap_space')}: click the partner card you take"
                    + (", or keep yours" if any(m.verb == "keep" for m in moves) else ""),
            "discard": "the three cards: click a card to throw away, then the discard pile"}.get(
        phase, "click a card of your hand: the places it can go light up")
    return spots, path, hint, (-6.0, -12.6, 0.0, 1.8, 1.4)


# --- Partners ------------------------------------------------------------------------------------------------------
def _partners(state: Any, player: int, view: dict[str, Any], moves: list[Any]):
    from cardgames.partners.cards import CARD_NAMES
    from viewer.cards.partners import SECTION

    colours = view.get("colours", [])
    locations = view.get("locations", [])
    names = list(view.get("pawns", {}))  # y1, y2, ... in pawn order
    seat_pawns = [[i for i in range(len(locations)) if i // 4 == q] for q in range(len(colours))]

    def probes(card: str) -> list[str]:
        seats = [q for q in (player, _partner(view, player)) if q is not None and q < len(seat_pawns)]
        mine = [names[i] for q in seats for i in seat_pawns[q]]
        if card == "7":
            return [f"7: {p}+7" for p in mine]
        if card == "switch":
            return [f"switch {mine[0]} {mine[1]}"] if len(mine) > 1 else []
        out = [f"{card} out"] if card in ("heart", "8", "13") else []
        values = {"1/14": ("1", "14"), "-4": ("-4",)}.get(card, (card,) if card not in ("heart",) else ())
        return out + [f"{v} {p}" for v in values for p in mine]

    spots = _hand(view, lambda c: f"your {c}", probes)
    for i, where in enumerate(locations):
        if where >= 0:
            colour, k = colours[i // 4], i % 4 + 1
            spots[f"pawn:{names[i]}"] = Spot(f"pawn:{names[i]}", f"{colour} pawn {k} ({view['pawns'][names[i]]})",
                                             figures=(i,))
    # a seat's base and home as one place: the squares and the pawns standing on them (a pawn covers most of
    # its square, so a click on it must mean the place too)
    track = SECTION * len(colours)
    places = {q: ((f"home-{q}", *(f"base-{q}-{k}" for k in range(4))),
                  tuple(i for i, where in enumerate(locations) if (where < 0 and i // 4 == q) or where == track + q))
              for q in range(len(colours))}
    for q, colour in enumerate(colours):
        spots[f"out:{q}"] = Spot(f"out:{q}", f"{colour}'s base", *places[q])
    partner = _partner(view, player)
    if partner is not None:
        labels = view.get("labels") or [f"P{q}" for q in range(len(colours))]
        spots["partner"] = Spot("partner", f"your partner {labels[partner]}", *places[partner])
    spots["pile"] = Spot("pile", "the middle of the board", ("discard",))
    for n in (-4, *range(1, 15)):
        spots[f"n:{n}"] = Spot(f"n:{n}", f"{'back' if n < 0 else 'forward'} {abs(n)}", text=str(n))
    out_seat: dict[str, int] = {}

    def path(m: Any) -> list[tuple[str, ...]]:
        name = CARD_NAMES.get(m.card, m.card)
        cards = _cards(view, name)
        if m.action == "give":
            return [(c, "partner") for c in cards]
        if m.action == "discard":
            return [(c, "pile") for c in [f"card:{i}" for i in range(len(view.get("hand", [])))]]
        if m.action == "out":
            if m.card not in out_seat:  # which seat's pawn comes out: the game's answer, from a copy
                after = state.clone()
                after.apply(m)
                left = [i for i, (a, b) in enumerate(zip(locations, after.view(player)["locations"], strict=True))
                        if a < 0 <= b]
                out_seat[m.card] = left[0] // 4 if left else player
            return [(c, f"out:{out_seat[m.card]}") for c in cards]
        pawns = [f"pawn:{names[p]}" for p in m.pawns]
        if m.action == "switch":
            return [(c, *order) for c in cards for order in (tuple(pawns), tuple(reversed(pawns)))]
        parts = list(zip(pawns, (f"n:{s}" for s in m.steps), strict=True))
        orders = permutations(parts) if len(parts) <= MAX_ORDERED_PARTS else [parts]
        return [(c, *(k for part in order for k in part)) for order in orders for c in cards]

    phase = view.get("phase")
    discard = len(moves) == 1 and moves[0].action == "discard"
    hint = ("the exchange: click a card, then your partner's base, to hand it over" if phase == "exchange"
            else "no card can be used: click a card, then the middle, to throw the hand away" if discard
            else "click a card of your hand: the pawns it can move light up")
    return spots, path, hint, (-10.5, 3.6, 0.3, 3.0, 2.6)  # chips: across the middle of the board


def _partner(view: dict[str, Any], player: int) -> int | None:
    for team in view.get("teams", []):
        if player in team:
            others = [q for q in team if q != player]
            return others[0] if others else None
    return None


# --- Diabolo -------------------------------------------------------------------------------------------------------
def _diabolo(state: Any, player: int, view: dict[str, Any], moves: list[Any]):
    from viewer.cards.diabolo import diabolo_slot

    def probes(card: str) -> list[str]:
        return [f"place {card} angel", f"place {card} devil"]

    spots = _hand(view, lambda c: f"your {c}", probes)
    for r, row in enumerate(view.get("rows", [])):
        colour = row.get("colour", "")
        for side in ("devil", "angel"):
            cards = row.get(side, [])
            x, y = diabolo_slot(r, side, len(cards))
            where = "hell" if side == "devil" else "heaven"
            spots[f"side:{colour}:{side}"] = Spot(
                f"side:{colour}:{side}", f"the {side} side ({where}) of the {colour} row, sum {sum(cards)}",
                tuple(f"{side}-{r}-{k}" for k in range(len(cards))),
                box=(x, y, 0.25, CARD_W, CARD_D, CARD_H))
    spots["pile"] = Spot("pile", "the discard pile", ("discard",))
    row = view.get("scoring_row") or "this"
    spots["double:yes"] = Spot("double:yes", f"double my gain on the {row} row", text="double")
    spots["double:no"] = Spot("double:no", "keep my doubler for later", text="keep")

    def path(m: Any) -> list[tuple[str, ...]]:
        if m.verb == "double":
            return [(f"double:{m.side}",)]
        cards = _cards(view, f"{m.colour} {m.value}")
        if m.verb == "discard":
            return [(c, "pile") for c in cards]
        return [(c, f"side:{m.colour}:{m.side}") for c in cards]

    hint = ("the doubler: click double or keep (then again to answer)" if view.get("phase") == "double"
            else "click a card of your hand: the sides of its row light up")
    return spots, path, hint, (11.0, -11.0, 0.0, 2.4, 1.8)


#: table layout (`GameState.layout`) -> its click paths
GAMES = {"heaven-track": _seventh, "partners-track": _partners, "diabolo-rows": _diabolo}
