"""The server keeps only a bounded number of finished games in memory; a dropped one is reloaded from the
database, unchanged, when asked for again."""

from __future__ import annotations

import asyncio

import tower.app.serve.server as server_module
from tower.app.serve.server import GameServer


def test_finished_games_leave_memory_and_come_back_unchanged(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(server_module, "FINISHED_KEPT", 1)

    async def scenario() -> None:
        srv = GameServer(str(tmp_path / "g.sqlite"), workers=1, ai_pause=0)
        try:
            ids = []
            for seed in range(3):  # AI seats only: each game plays itself to the end
                made = await srv.create({"game": "diabolo", "seats": ["ai:random"] * 3, "seed": seed}, "http://x")
                ids.append(made["id"])
            for game_id in ids:
                for _ in range(600):
                    if srv.tables[game_id].state.is_over:
                        break
                    await asyncio.sleep(0.05)
                assert srv.tables[game_id].state.is_over, "an AI game did not finish"
            records = {game_id: await srv.record(game_id) for game_id in ids}
            running = await srv.create({"game": "diabolo", "seats": ["human"] * 3, "seed": 9}, "http://x")
            # the running game stays; of the three finished ones only the newest one is kept
            assert running["id"] in srv.tables
            assert [g for g in ids if g in srv.tables] == [ids[-1]]
            for game_id in ids:  # reloaded from the database: the same record as before it left memory
                assert await srv.record(game_id) == records[game_id]
        finally:
            await srv.close()

    asyncio.run(scenario())
