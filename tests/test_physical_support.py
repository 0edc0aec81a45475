"""The `support=physical` rule option (rulings: overhangs allowed where the physics judge says the whole
construction stands; collapsing it is always illegal) and the fast statics test behind it."""

from __future__ import annotations

import random

import pytest
from test_climbers import M, blk

from physics import judge_statics, stands
from physics.builds import random_build
from physics.units import grid_box
from tower.app.stability import statics_stands
from tower.climbers.build import Build
from tower.climbers.game import ClimbersState
from tower.climbers.legality import check_build
from tower.games.errors import BadInput


@pytest.mark.parametrize("seed", range(0, 240, 3))
def test_the_quick_stand_test_agrees_with_the_full_statics_judge(seed):
    rng = random.Random(seed)
    boxes = random_build(rng, rng.randint(2, 40))
    assert stands(boxes) == judge_statics(boxes).stable
    assert stands(boxes, first=boxes[-1].id) == judge_statics(boxes).stable


def test_a_block_on_the_far_side_props_an_overhang_but_not_one_behind_it():
    base = grid_box("base", (0, 0, 0), (2, 2, 2))
    beam = grid_box("beam", (0, 0, 2), (4, 2, 2))  # centre 1 unit past the base's edge: it tips towards +x
    behind = grid_box("behind", (-2, 0, 0), (2, 2, 6))  # touches the beam's -x face: cannot hold it
    assert not stands([base, beam, behind], first="beam")
    post = grid_box("post", (2, 0, 0), (2, 2, 2))  # under the overhang: holds it
    assert stands([base, post, beam], first="beam")


def small_tower(judge=statics_stands, **options) -> ClimbersState:
    blocks = [blk("g", (10, 10, 0), (2, 2, 6), "all-grey"), blk("c", (12, 10, 0), (2, 2, 2), "red"),
              blk("h", (10, 8, 0), (2, 2, 1), "yellow")]
    state = ClimbersState.position(2, Build(blocks), [(4, 4, 0), (4, 6, 0)], options=options or None, judge=judge)
    state.apply(M("skip"))  # to the block step
    return state


def test_the_physical_option_needs_the_judge_handed_in():
    with pytest.raises(BadInput, match="physical"):
        small_tower(judge=None, support="physical")


def test_the_physical_option_adds_the_overhangs_that_stand_and_only_those():
    strict = set(small_tower().block_moves())
    physical = small_tower(support="physical")
    extra = set(physical.block_moves()) - strict
    assert strict <= set(physical.block_moves())
    assert extra, "an overhang that stands should be offered"
    for move in extra:
        after = physical.clone()
        after.apply(move)
        build = after.to_build()
        assert "unsupported" in {v.rule for v in check_build(build)}  # an overhang the strict rule forbids
        assert statics_stands(build)  # ... that the judge accepts
    # a cube laid with its centre past the edge of the cube it rests on is never offered
    assert M("block h 13,10,2 2x2x1 yellow") not in physical.block_moves()
    assert M("block h 12,10,2 2x2x1 yellow") in physical.block_moves()  # fully on the cube
