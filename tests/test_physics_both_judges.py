"""The physics issue's reference cases through both judges and the combined verdict (docs/formats.md).

Expected numbers come from rigid-body mechanics (a block tips when the tilt carries its centre of mass past the
edge of its support: tan(tilt) = half width / centre height; it slides when tan(tilt) = mu), not from the code.
"""

from __future__ import annotations

import math
import random

import pytest

from physics import COLLAPSES, STABLE, judge
from physics.statics import TILT_TOL_DEG
from physics.units import DEFAULT_MU, grid_box
from tower.app.stability import judge_build
from tower.climbers.legality import check_build
from tower.climbers.setup import random_start_tower
from tower.games import new_game


def test_a_block_on_the_table_slides_before_it_tips_at_atan_mu():
    block = [grid_box("cube", (0, 0, 0), (2, 2, 2))]  # tips only at 45 deg (less the inset), slides at 26.6
    v = judge(block)
    assert v.verdict == STABLE
    assert v.statics.tilt_margin_deg == pytest.approx(math.degrees(math.atan(DEFAULT_MU)), abs=TILT_TOL_DEG)
    assert v.statics.tilt_margin_deg == pytest.approx(26.57, abs=0.01)
    assert not v.dynamics.collapsed


def test_a_column_of_five_standing_double_cubes_tips_at_atan_one_tenth():
    column = [grid_box(f"d{k}", (0, 0, 4 * k), (2, 2, 4)) for k in range(5)]  # 4 cm wide, 40 cm tall
    v = judge(column)
    assert v.verdict == STABLE
    assert v.statics.tilt_margin_deg == pytest.approx(math.degrees(math.atan(1 / 10)), abs=0.7)  # 5.7 deg
    assert abs(v.statics.weakest_direction[0]) + abs(v.statics.weakest_direction[1]) == pytest.approx(1.0)
    assert not v.dynamics.collapsed and v.dynamics.max_displacement_mm < 2.0


def test_a_lintel_over_a_gap_stands():
    posts = [grid_box("left", (0, 0, 0), (2, 2, 2)), grid_box("right", (4, 0, 0), (2, 2, 2))]
    lintel = grid_box("lintel", (0, 0, 2), (6, 2, 2))  # a grey block lying across the 2-unit gap
    v = judge([*posts, lintel])
    assert v.verdict == STABLE, v.to_json()
    assert judge([posts[0], lintel]).verdict == COLLAPSES  # one post alone: the lintel's centre is past it


def test_a_counterweighted_cantilever_stands_and_falls_without_its_counterweight():
    base = grid_box("base", (0, 0, 0), (2, 2, 2))
    beam = grid_box("beam", (0, 0, 2), (4, 2, 2))  # centre 1 unit past the base's edge
    weight = grid_box("weight", (0, 0, 4), (2, 2, 2))  # over the base: pulls the beam's centre back
    assert judge([base, beam, weight]).verdict == STABLE
    assert judge([base, beam]).verdict == COLLAPSES


def test_a_beam_with_its_centre_one_unit_beyond_its_support_falls():
    support = grid_box("support", (0, 0, 0), (2, 2, 2))
    beam = grid_box("beam", (1, 0, 2), (4, 2, 2))  # spans x 1..5: centre at 3, support edge at 2
    v = judge([support, beam])
    assert v.verdict == COLLAPSES
    assert not v.statics.stable and "beam" in v.statics.mechanism
    assert v.dynamics.moved == ("beam",)


def test_a_floating_block_falls():
    v = judge([grid_box("ground", (0, 0, 0), (2, 2, 2)), grid_box("cloud", (6, 0, 3), (2, 2, 2))])
    assert v.verdict == COLLAPSES
    assert v.dynamics.moved == ("cloud",)


def test_a_column_of_ten_cubes_stands_in_both_judges():
    v = judge([grid_box(f"c{k}", (0, 0, 2 * k), (2, 2, 2)) for k in range(10)])
    assert v.verdict == STABLE
    assert v.dynamics.max_displacement_mm < 2.0


def legal_builds() -> list:
    """Start towers and builds reached by random Climbers games: all strictly legal."""
    builds = [random_start_tower(seed) for seed in (1, 2)]
    rng = random.Random(4)
    for seed in (3, 5):
        state = new_game("climbers", 3, seed=seed)
        for _ in range(60):
            if state.is_over:
                break
            state.apply(state.random_move(rng))
        builds.append(state.to_build())
    return builds


@pytest.mark.parametrize("k", range(4))
def test_every_legal_build_stands_in_both_judges(k):
    build = legal_builds()[k]
    assert [v for v in check_build(build) if v.rule != "block-count"] == []
    v = judge_build(build)
    assert v.statics.stable and not v.dynamics.collapsed, v.to_json()
    assert v.verdict != COLLAPSES
