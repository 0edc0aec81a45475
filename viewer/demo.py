"""Pictures for `tower demo`: written offscreen, one line per file for the demo's summary."""

from __future__ import annotations

from pathlib import Path

from tower.build import Build


def demo_pictures(build: Build, out_dir: str | Path) -> list[str]:
    """Screenshot the start tower (and one position of each card game the viewer can show) into out_dir."""
    from viewer.render import render_scene
    from viewer.view import build_view_scene

    out = Path(out_dir)
    lines = []
    path = out / "start-tower.png"
    render_scene(build_view_scene(build, title="start tower", physics=False), path)
    lines.append(f"picture: {path} (start tower, {len(build.blocks)} blocks)")
    lines += _game_pictures(out)
    return lines


def _game_pictures(out: Path) -> list[str]:
    """One picture per game after a few AI moves; a game the registry or viewer lacks is skipped with a note."""
    from tower.ai import make_agent
    from tower.errors import BadInput
    from tower.games import new_game
    from viewer.games import scene_for_view
    from viewer.render import render_scene

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
            scene = scene_for_view(game, state.view(player), title=f"{game}, after {len(state.history)} moves")
        except BadInput as exc:
            lines.append(f"picture: {game} skipped ({exc.what})")
            continue
        path = out / f"{game}.png"
        render_scene(scene, path)
        lines.append(f"picture: {path} ({game}, seen by player {player})")
    return lines
