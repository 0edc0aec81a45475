"""Image regression: each game's play-window picture (highlights, ghosts, labels, menu) against a committed PNG.

The positions are frozen in tests/images/cases.json (a player's `state.view`, the overlays the play window adds,
and for the card games the view after the previewed move), so a change in a game's rules or AI does not move
the pictures; what is tested is viewer code: the pure scene step, the preview, the renderer and the camera.

Regenerate after an intended change of the pictures (then look at every PNG before committing):

    .venv/bin/python tests/test_viewer_images.py            # re-render tests/images/*.png from cases.json
    .venv/bin/python tests/test_viewer_images.py --cases    # also rebuild cases.json from seeded games first

The comparison allows what llvmpipe may vary (a few anti-aliased edge pixels, tiny shading differences) and
nothing more: a highlight drawn in another colour changes hundreds of pixels by far more than the tolerance
(test_a_wrong_highlight_colour_fails checks exactly that).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

IMAGES = Path(__file__).parent / "images"
CASES = IMAGES / "cases.json"
SIZE = (1280, 820)  # the play window's size: the pictures are what a player sees
PIXEL_TOL = 20  # a pixel differs if a channel moved by more than this (0-255)
MAX_DIFFERENT = 0.0002  # share of differing pixels allowed: about 210 of 1,049,600
MAX_MEAN = 0.3  # mean absolute difference over all channels


# --- cases: frozen positions -> scenes ---------------------------------------------------------------------

def scene_for_case(case: dict[str, Any]):
    """The scene of a frozen case, built by the viewer's own pure functions."""
    from viewer.games import scene_for_view
    from viewer.scene import SceneFigure, SceneGhost

    kind = case["kind"]
    if kind == "build":
        from tower.climbers.build import parse_build
        from viewer.view import build_view_scene

        scene = build_view_scene(parse_build(case["build"]), title=case["title"])
    elif kind == "climbers":
        o = case["overlays"]
        scene = scene_for_view("tower", case["view"], selected=o["selected"], movable=o["movable"],
                               ghosts=[SceneGhost(g["block"], tuple(g["origin"]), tuple(g["size"]), tuple(g["faces"]),
                                                  g["selected"], g["label"]) for g in o["ghosts"]],
                               targets=[tuple(c) for c in o["targets"]], hover=o["hover"])
        scene.ghost_figures = [SceneFigure(f["colour"], tuple(f["cell"])) for f in o["ghost_figures"]]
    else:
        from tower.games import game_class
        from viewer.motion import with_preview

        layout = game_class(case["game"]).layout
        scene = with_preview(scene_for_view(layout, case["view"]), scene_for_view(layout, case["after"]))
    scene.menu = list(case.get("menu", []))
    return scene


def render_case(case: dict[str, Any]) -> np.ndarray:
    from viewer.renderer import render_scene

    return render_scene(scene_for_case(case), window_size=SIZE)


def compare(img: np.ndarray, ref: np.ndarray) -> tuple[float, float]:
    """(share of pixels differing by more than PIXEL_TOL in some channel, mean absolute difference)."""
    assert img.shape == ref.shape, (img.shape, ref.shape)
    diff = np.abs(img.astype(int) - ref.astype(int))
    return float(np.mean(diff.max(axis=2) > PIXEL_TOL)), float(diff.mean())


def load_cases() -> dict[str, dict[str, Any]]:
    return json.loads(CASES.read_text())


# --- the tests ---------------------------------------------------------------------------------------------

pytest.importorskip("vtkmodules")


@pytest.fixture(scope="module")
def cases() -> dict[str, dict[str, Any]]:
    return load_cases()


def _check(name: str, case: dict[str, Any], tmp_path: Path) -> None:
    import imageio.v3 as iio

    ref = iio.imread(IMAGES / f"{name}.png")[:, :, :3]
    img = render_case(case)
    share, mean = compare(img, ref)
    if share > MAX_DIFFERENT or mean > MAX_MEAN:
        iio.imwrite(tmp_path / f"{name}.png", img)
        pytest.fail(f"{name}: {share:.4%} of pixels differ (limit {MAX_DIFFERENT:.4%}), mean difference {mean:.2f} "
                    f"(limit {MAX_MEAN}); this rendering: {tmp_path / (name + '.png')}")


@pytest.mark.parametrize("name", ["climbers-block", "climbers-place", "climbers-figure", "build-problems",
                                  "seventh-heaven", "partners", "diabolo"])
def test_picture_matches_the_reference(name: str, cases, tmp_path: Path) -> None:
    _check(name, cases[name], tmp_path)


def test_every_case_has_a_reference(cases) -> None:
    assert sorted(p.stem for p in IMAGES.glob("*.png")) == sorted(cases)


def test_the_cases_show_the_highlights_they_are_meant_to(cases) -> None:
    """The frozen positions still contain what the pictures are there to check."""
    block = scene_for_case(cases["climbers-block"])
    assert block.hover and sum(b.movable for b in block.blocks) > 2
    assert [g.selected for g in block.ghosts] == [True]
    place = scene_for_case(cases["climbers-place"])
    assert sum(b.selected for b in place.blocks) == 1 and not any(b.movable for b in place.blocks)
    assert sum(g.selected for g in place.ghosts) == 1 and len(place.ghosts) > 1
    figure = scene_for_case(cases["climbers-figure"])
    assert [m for m in figure.markers if m.kind == "target"] and figure.ghost_figures
    assert any(f.current for f in figure.figures)
    assert scene_for_case(cases["build-problems"]).problem_blocks
    for game in ("seventh-heaven", "partners", "diabolo"):
        scene = scene_for_case(cases[game])
        assert scene.ghosts or scene.ghost_figures, game
        assert any(lab.text for lab in scene.labels) and scene.menu


@pytest.mark.parametrize("colour,case,wrong", [
    ("MOVABLE_RGB", "climbers-block", (255, 150, 40)),  # a more orange amber
    ("HOVER_RGB", "climbers-block", (0, 120, 255)),
    ("SELECT_RGB", "climbers-place", (255, 255, 160)),  # white turned cream
    ("TARGET_RGB", "climbers-figure", (40, 220, 130)),
    ("PROBLEM_RGB", "build-problems", (255, 40, 40)),
])
def test_a_wrong_highlight_colour_fails(colour: str, case: str, wrong: tuple[int, int, int], cases,
                                        monkeypatch) -> None:
    """The tolerance is tight: a highlight in another, still plausible colour is caught."""
    import imageio.v3 as iio

    import viewer.layers as render

    monkeypatch.setattr(render, colour, wrong)
    ref = iio.imread(IMAGES / f"{case}.png")[:, :, :3]
    share, _ = compare(render_case(cases[case]), ref)
    assert share > 3 * MAX_DIFFERENT, f"{colour}: only {share:.4%} of pixels changed"


# --- regeneration ------------------------------------------------------------------------------------------

def build_cases() -> dict[str, dict[str, Any]]:
    """Seeded games played to a position, with the overlays the play window shows there."""
    from tower.climbers.build import Block, Figure, build_to_json
    from tower.climbers.setup import random_start_tower
    from viewer.play import PlayController

    cases: dict[str, dict[str, Any]] = {}

    # block step, nothing picked yet: movable blocks outlined, one hovered, the highlighted move as a solid ghost
    ctl = PlayController(_game("climbers", 3, 4), ["human", "ai:greedy", "ai:greedy"])
    ctl.confirm()  # the first figure move: now a block must move
    movable = sorted(ctl.movable_blocks(), key=lambda b: _nearness(ctl, b))
    ctl.hover = movable[-1]
    ctl.select(next(m for m in ctl.moves if m.kind == "block" and m.block == movable[-2]))
    cases["climbers-block"] = _climbers_case(ctl)
    # a block picked: its placements as ghosts, one of them chosen
    ctl.hover = None
    ctl.click_block(movable[-1])
    ctl.cycle(3)
    cases["climbers-place"] = _climbers_case(ctl)
    # figure step: the legal target cells, the chosen one with a ghost figure on it (the one nearest the camera)
    ctl = PlayController(_game("climbers", 3, 7), ["human", "ai:greedy", "ai:greedy"])
    ctl.select(max((m for m in ctl.moves if m.kind == "fig"), key=lambda m: _toward_camera(m.cell)))
    cases["climbers-figure"] = _climbers_case(ctl)

    tower = random_start_tower(3)
    top = max(tower.blocks, key=lambda b: b.top)
    floating = Block(top.id, (top.origin[0], top.origin[1], top.origin[2] + 2), top.size, top.faces)
    first = tower.blocks[0]
    shifted = Block(first.id, (first.origin[0] + 1, first.origin[1], first.origin[2]), first.size, first.faces)
    bad = type(tower)([shifted] + [b for b in tower.blocks[1:] if b.id != top.id] + [floating],
                      [Figure("red", (-3, 0, 2))], [])
    cases["build-problems"] = {"kind": "build", "build": build_to_json(bad), "title": "build with problems"}

    for game, players, seed, moves in (("seventh-heaven", 3, 2, 7), ("partners", 4, 2, 10), ("diabolo", 4, 2, 9)):
        ctl = PlayController(_game(game, players, seed), ["human"] + ["ai:greedy"] * (players - 1))
        for _ in range(moves):
            if ctl.human_to_move:
                ctl.confirm()
            ctl.ai_step()
        ctl.run_ais()
        for _ in range(len(ctl.moves)):  # a move whose preview shows something
            if (lambda s: s.ghosts or s.ghost_figures)(ctl.scene()):
                break
            ctl.cycle(1)
        after = ctl.state.clone()
        after.apply(ctl.current_move)
        cases[game] = {"kind": "cards", "game": game, "view": ctl.state.view(ctl.viewer),
                       "after": after.view(ctl.viewer), "menu": ctl.text_lines()}
    return json.loads(json.dumps(cases))  # tuples -> lists, as the file will hold them


def _toward_camera(point) -> float:
    """How far a point lies toward the default camera (preset 1 looks from +x, -y, above)."""
    return 0.75 * point[0] - point[1] + 0.72 * point[2]


def _nearness(ctl, block_id: str) -> float:
    b = ctl.state.to_build().block(block_id)
    return _toward_camera([o + s / 2 for o, s in zip(b.origin, b.size, strict=True)])


def _game(name: str, players: int, seed: int):
    from tower.games import new_game

    return new_game(name, players, seed=seed)


def _climbers_case(ctl) -> dict[str, Any]:
    scene = ctl.scene()
    return {"kind": "climbers", "game": "climbers", "view": ctl.state.view(ctl.viewer), "menu": scene.menu,
            "overlays": {"selected": next((b.id for b in scene.blocks if b.selected), None),
                         "movable": [b.id for b in scene.blocks if b.movable], "hover": scene.hover,
                         "ghosts": [{"block": g.block, "origin": g.origin, "size": g.size, "faces": g.faces,
                                     "selected": g.selected, "label": g.label} for g in scene.ghosts],
                         "targets": [m.cell for m in scene.markers if m.kind == "target"],
                         "ghost_figures": [{"colour": f.colour, "cell": f.cell} for f in scene.ghost_figures]}}


def main(argv: list[str]) -> int:
    import imageio.v3 as iio

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    IMAGES.mkdir(exist_ok=True)
    if "--cases" in argv or not CASES.exists():
        CASES.write_text(json.dumps(build_cases(), indent=1) + "\n")
        print(f"wrote {CASES}")
    for name, case in load_cases().items():
        iio.imwrite(IMAGES / f"{name}.png", render_case(case))
        print(f"wrote {IMAGES / name}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
