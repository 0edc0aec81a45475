"""Aimed block placement (viewer.placement): the pointer's spot, the placements offered there, cycling, and "why
not here" in the game's words, on a real start tower of The Climbers."""

from __future__ import annotations

import pytest

from tower.games.registry import new_game
from viewer.placement import Aim, BlockPlacements, placement_text


def _block_step(seed: int = 7):
    st = new_game("climbers", 2, seed, {})
    st.apply(st.move_type.parse("skip", st))  # to the block step
    return st


def _explain(st):  # the same as viewer.placement.explainer, spelled out: the test does not trust it
    def explain(text: str) -> str | None:
        refused = st.explain(st.move_type.parse(text, st))
        return None if refused is None else refused.message
    return explain


@pytest.fixture(scope="module")
def half_cube():
    """A half cube of the start tower (the issue's example: hundreds of near-identical placements)."""
    st = _block_step()
    legal = st.legal_moves()
    block = next(b for b in sorted({m.block for m in legal if m.kind == "block"}) if b.startswith("h"))
    mine = [m for m in legal if m.kind == "block" and m.block == block]
    ps = BlockPlacements.from_moves(block, mine, st.to_build(), words=st.move_words)
    ps.explain_with(_explain(st))
    return st, block, mine, ps


def test_every_legal_placement_is_reached_by_pointing_at_its_centre_and_cycling(half_cube):
    st, block, mine, ps = half_cube
    assert len(ps.placements) == len(mine) > 100
    for p in ps.placements:
        sx, sy, _ = ps.shapes[p.shape].size
        aim = Aim(ps)
        aim.point((p.origin[0] + sx / 2, p.origin[1] + sy / 2, p.origin[2]), (0, 0, 1))
        offered = [ps.placements[i] for i in aim.options]
        assert p in offered
        # at most one placement per shape (push variants aside) are offered at one spot: no clutter
        assert len({(q.shape, q.origin) for q in offered}) == len({q.shape for q in offered}) <= len(ps.shapes)
        for _ in range(len(offered)):
            if aim.current == p:
                break
            aim.cycle()
        assert aim.current == p


def test_the_options_at_a_spot_are_legal_and_stand_on_the_pointed_column(half_cube):
    st, block, mine, ps = half_cube
    legal = {str(m) for m in mine}
    build = st.to_build()
    for b in build.blocks:
        (x, y, z), sz = b.origin, b.size[2]
        aim = Aim(ps)
        spot = aim.point((x + 0.5, y + 0.5, z + sz), (0, 0, 1))  # the top face of that block
        assert (spot.x, spot.y) == (x, y)
        for i in aim.options:
            p = ps.placements[i]
            psx, psy, _ = ps.shapes[p.shape].size
            assert p.text in legal
            assert p.origin[0] <= x < p.origin[0] + psx and p.origin[1] <= y < p.origin[1] + psy
            assert p.origin[2] == spot.z


def test_a_side_face_points_at_the_column_in_front_of_it(half_cube):
    st, block, mine, ps = half_cube
    aim = Aim(ps)
    spot = aim.point((10.0, 4.3, 1.5), (-1, 0, 0))  # the -x face of a block whose column starts at x = 10
    assert (spot.x, spot.y, spot.z) == (9, 4, ps.height(9, 4))
    assert aim.point((40.0, 3.0, 0.0), (0, 0, 1)) is None  # off the table area
    assert "off the table" in aim.status() or "point at" in aim.status()


def test_where_nothing_is_legal_the_game_says_why_in_words(half_cube):
    st, block, mine, ps = half_cube
    assert ps.why and ps.far
    explain = _explain(st)
    # the table far from the tower: the contact rule, in the words of the game's refusal
    aim = Aim(ps)
    aim.point((1.5, 1.5, 0.0), (0, 0, 1))
    assert aim.current is None and aim.why_not() == ps.far
    assert "touch the construction" in ps.far
    # each column with a reason: no placement there, and the reason is the game's for the probe placement
    for (x, y), text in list(ps.why.items())[:40]:
        aim.point((x + 0.5, y + 0.5, ps.height(x, y)), (0, 0, 1))
        assert aim.options == []
        origin, shape = ps.probe_at(x, y)
        assert aim.why_not() == text == explain(placement_text(block, origin, shape.size, shape.top))
        assert aim.status().startswith(f"not at ({x},{y}): ")


def test_the_shape_chosen_by_cycling_sticks_as_the_pointer_moves(half_cube):
    st, block, mine, ps = half_cube
    counts = {}
    for p in ps.placements:
        counts.setdefault(p.shape, set()).add(p.origin)
    rich = [s for s, cells in counts.items() if len(cells) > 3]
    assert len(rich) >= 2
    aim = Aim(ps)
    # find two spots where a second shape is offered, cycle to it at the first, then move to the second
    spots = []
    for p in ps.placements:
        if p.shape == rich[1]:
            sx, sy, _ = ps.shapes[p.shape].size
            spots.append((p.origin[0] + sx / 2, p.origin[1] + sy / 2, p.origin[2]))
    aim.point(spots[0], (0, 0, 1))
    while aim.current.shape != rich[1]:
        aim.cycle()
    aim.point(spots[-1], (0, 0, 1))
    assert aim.current.shape == rich[1]


def test_the_explainer_asks_the_game(half_cube):
    from viewer.placement import explainer

    st, block, mine, ps = half_cube
    explain = explainer(st)
    assert explain(str(mine[0])) is None
    text = placement_text(block, (1, 1, 0), ps.shapes[0].size, ps.shapes[0].top)
    assert explain(text) == st.explain(st.move_type.parse(text, st)).message
    assert "usage" in explain("block only-two-words")


def test_the_json_is_what_the_page_needs_and_words_come_from_the_game(half_cube):
    st, block, mine, ps = half_cube
    doc = ps.to_json()
    assert doc["block"] == block and len(doc["placements"]) == len(mine)
    x, y, z, shape, text, words = doc["placements"][0]
    move = next(m for m in mine if str(m) == text)
    assert words == st.move_words(move) and words.startswith(f"put block {block} at ")
    assert sum(len(w["columns"]) for w in doc["why"]) == len(ps.why)
    assert all(len(s["faces"]) == 6 for s in doc["shapes"])


def test_with_physical_support_every_overhanging_placement_can_be_pointed_at():
    """support=physical adds placements resting on their highest supports only (overhangs): pointing at one of
    the columns they cover still offers each of them."""
    from tower.app.stability import statics_stands

    st = new_game("climbers", 2, 7, {"support": "physical"}, judge=statics_stands)
    st.apply(st.move_type.parse("skip", st))
    legal = st.legal_moves()
    strict = _block_step()
    plain = {str(m) for m in strict.legal_moves()}
    blocks = sorted({m.block for m in legal if m.kind == "block"})[:4]
    overhangs = 0
    for block in blocks:
        mine = [m for m in legal if m.kind == "block" and m.block == block]
        ps = BlockPlacements.from_moves(block, mine, st.to_build())
        for p in ps.placements:
            overhangs += p.text not in plain
            sx, sy, _ = ps.shapes[p.shape].size
            aim = Aim(ps)
            reached = False
            for cx in range(p.origin[0], p.origin[0] + sx):
                for cy in range(p.origin[1], p.origin[1] + sy):
                    aim.point((cx + 0.5, cy + 0.5, ps.height(cx, cy)), (0, 0, 1))
                    reached |= any(ps.placements[i].origin == p.origin and ps.placements[i].shape == p.shape
                                   for i in aim.options)
            assert reached, p.text
    assert overhangs > 0
