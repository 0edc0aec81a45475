"""Pictures for `tower demo`: written offscreen, one line per file for the demo's summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tower.climbers.build import Build

COLLAPSE_SIZE = (480, 360)
COLLAPSE_FPS = 15  # every other frame of the 30 fps trajectory: a short GIF that still reads as a fall


def demo_pictures(build: Build, out_dir: str | Path, physics: Any) -> list[str]:
    """Screenshot the start tower, one position of each game, and a collapse animation (by `physics.fall`, see
    `viewer.Physics`) into out_dir."""
    from viewer.renderer import render_scene
    from viewer.view import build_view_scene

    out = Path(out_dir)
    lines = []
    path = out / "start-tower.png"
    render_scene(build_view_scene(build, title="start tower"), path)
    lines.append(f"picture: {path} (start tower, {len(build.blocks)} blocks)")
    lines += _game_pictures(out)
    try:
        block, frames = collapse_animation(build, out / "collapse.gif", physics)
    except ImportError as exc:  # pybullet missing: the pictures above are still worth having
        lines.append(f"animation: skipped ({exc.name} is not installed)")
    else:
        lines.append(f"animation: {out / 'collapse.gif'} (start tower without {block}, {frames} frames)"
                     if block else "animation: skipped (no single block's removal topples this tower)")
    return lines


def weakest_blocks(build: Build) -> list[str]:
    """Block ids ordered by how much rests on them (most first): the likeliest to topple the tower if taken."""
    def load(b) -> int:
        x0, x1, y0, y1 = b.origin[0], b.origin[0] + b.size[0], b.origin[1], b.origin[1] + b.size[1]
        return sum(o.size[0] * o.size[1] * o.size[2] for o in build.blocks
                   if o is not b and o.origin[2] >= b.top and o.origin[0] < x1 and x0 < o.origin[0] + o.size[0]
                   and o.origin[1] < y1 and y0 < o.origin[1] + o.size[1])
    return [b.id for b in sorted(build.blocks, key=lambda b: (-load(b), b.id))]


def collapse_animation(build: Build, path: str | Path, physics: Any, tries: int = 8, seconds: float = 2.0,
                       size: tuple[int, int] = COLLAPSE_SIZE) -> tuple[str | None, int]:
    """A GIF of the tower falling after one block is taken away: of the `tries` most loaded blocks, the one
    whose removal makes the PyBullet judge's fall the largest. Returns (block id or None, frames written)."""
    import imageio.v3 as iio

    from physics.units import UNIT_M
    from tower.games.fileio import atomic_write_bytes
    from viewer.poses import set_block_poses
    from viewer.renderer import SceneRenderer
    from viewer.scene import build_scene

    best = None
    for block in weakest_blocks(build)[:tries]:
        result = physics.fall(build.without({block}), seconds)
        if result.collapsed and (best is None or _travel(result.trajectory) > _travel(best[1].trajectory)):
            best = (block, result)
    if best is None:
        return None, 0
    block, result = best
    r = SceneRenderer(window_size=size)
    images = []
    try:
        # the camera frames the whole tower first, so the fall happens inside a fixed picture
        r.update(build_scene(build, selected=block, title=f"what if {block} is taken away?"), reset_camera=True)
        images.append(r.image())
        moved = ", ".join(result.moved[:4])
        r.update(build_scene(build.without({block}), title=f"without {block}: {moved} fall"))
        step = max(1, round(30 / COLLAPSE_FPS))
        for frame in (result.trajectory or [])[::step]:
            set_block_poses(r, frame["poses"], UNIT_M)
            images.append(r.image())
    finally:
        r.close()
    durations = [1500] + [1000 / COLLAPSE_FPS] * (len(images) - 2) + [2000]
    atomic_write_bytes(path, iio.imwrite("<bytes>", images, extension=".gif", duration=durations, loop=0))
    return block, len(images)


def _travel(trajectory: list[dict] | None) -> float:
    """How far all bodies moved between the first and last frame (metres, summed)."""
    if not trajectory:
        return 0.0
    first, last = trajectory[0]["poses"], trajectory[-1]["poses"]
    return sum(sum((a - b) ** 2 for a, b in zip(last[k][0], first[k][0], strict=True)) ** 0.5 for k in first)


def _game_pictures(out: Path) -> list[str]:
    """One picture per game after a few AI moves; a game the registry or viewer lacks is skipped with a note."""
    from tower.games import new_game
    from tower.games.ai import make_agent
    from tower.games.errors import BadInput
    from viewer.games import scene_for_view
    from viewer.renderer import render_scene

    lines = []
    for game, players, moves in (("climbers", 3, 2), ("seventh-heaven", 3, 8), ("partners", 4, 8),
                                 ("diabolo", 3, 8)):
        try:
            state = new_game(game, players, seed=1)
            agent = make_agent("ai:random", seed=1)
            for _ in range(moves):
                if state.is_over:
                    break
                state.apply(agent.choose(state))
            player = state.current_player if state.current_player is not None else 0
            scene = scene_for_view(state.layout, state.view(player), title=f"{game}, after {len(state.history)} moves")
        except BadInput as exc:
            lines.append(f"picture: {game} skipped ({exc.what})")
            continue
        path = out / f"{game}.png"
        render_scene(scene, path)
        lines.append(f"picture: {path} ({game}, seen by player {player})")
    return lines
