"""What a newcomer's page asks of `tower serve` besides moves (docs/serve.md): a block's placements grouped for
pointing, seat names, the rematch, move words and prompts in the snapshot, the catalogue's option help; and
their refusals, each changing nothing."""

from __future__ import annotations

import time

import pytest

from tests.serve_support import ROOMY
from tower.app.serve.client import Client
from tower.app.serve.run import ServerThread
from tower.app.serve.table import NAME_MAX, clean_name
from tower.app.stability import statics_stands
from tower.games.errors import BadInput
from tower.games.registry import game_class, game_names, new_game


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerThread(str(tmp_path_factory.mktemp("seats") / "games.sqlite"), ai_pause=0, limits=ROOMY,
                      workers=1) as srv:
        yield srv


@pytest.fixture
def api(server):
    client = Client(server.url)
    yield client
    client.close()


def test_the_catalogue_names_and_explains_every_option_and_how_to_play(api):
    cat = api.request("GET", "/api/catalogue")[1]
    for g in cat["games"]:
        cls = game_class(g["name"])
        assert set(g["help"]) == set(g["options"])
        for name, help_ in g["help"].items():
            assert help_["label"] and help_["label"] != name and len(help_["text"]) > 15
        assert g["how_to_play"].count("\n\n") >= 2 and g["build_option"] == cls.build_option
    assert {g["name"] for g in cat["games"]} == set(game_names())


def test_placements_come_grouped_with_why_not_and_are_refused_out_of_turn_or_for_a_fixed_block(api, server):
    g = api.create("climbers", seats=["human", "human"], seed=7)
    t0, t1 = (s["token"] for s in g["seats"])
    first = api.request("GET", f"/api/games/{g['id']}/snapshot?token={t0}")[1]
    # every listed move in words, and the step of the turn in words
    assert set(first["words"]) >= set(first["moves"]) and first["moves"]
    assert first["words"]["skip"] == "don't move the figure now: go on to the block move"
    assert any(w.startswith("walk to (") for w in first["words"].values()) and first["prompt"].startswith("Step 1")
    api.move(g["id"], t0, "skip")
    snap = api.request("GET", f"/api/games/{g['id']}/snapshot?token={t0}")[1]
    block = snap["blocks"][0]
    status, doc = api.request("GET", f"/api/games/{g['id']}/placements?token={t0}&block={block}")
    assert status == 200 and doc["block"] == block and doc["n"] == 1
    truth = new_game("climbers", 2, 7, judge=statics_stands)
    truth.apply_text("skip")
    legal = {str(m) for m in truth.legal_moves() if str(m).startswith(f"block {block} ")}
    assert {p[4] for p in doc["placements"]} == legal and doc["why"] and doc["far"]
    fixed = next(b["id"] for b in snap["scene"]["blocks"] if b["id"] not in snap["blocks"])
    assert api.request("GET", f"/api/games/{g['id']}/placements?token={t0}&block={fixed}")[0] == 409
    assert api.request("GET", f"/api/games/{g['id']}/placements?token={t1}&block={block}")[0] == 409
    assert api.request("GET", f"/api/games/{g['id']}/placements?token=nope&block={block}")[0] == 403
    assert snap["prompt"].startswith("Step 2 of 4")


def test_names_are_plain_capped_text_seen_by_everyone(api, server):
    g = api.create("diabolo", seats=["human", "human", "ai:greedy"], seed=3)
    t0, t1 = (s["token"] for s in g["seats"])
    status, answer = api.request("POST", f"/api/games/{g['id']}/name?token={t0}", {"name": "  Ada\n<i>L</i>  "})
    assert status == 200 and answer == {"seat": 0, "name": "Ada <i>L</i>"}
    seen = api.request("GET", f"/api/games/{g['id']}/snapshot?token={t1}")[1]["players"][0]
    assert seen["name"] == "Ada <i>L</i>" and seen["label"] == "P0 (Ada <i>L</i>)"
    for body, code in (({"name": "x" * (NAME_MAX + 1)}, 400), ({"name": 7}, 400), ({"nom": "x"}, 400)):
        assert api.request("POST", f"/api/games/{g['id']}/name?token={t1}", body)[0] == code
    watch = g["spectator_url"].split("token=")[1]
    assert api.request("POST", f"/api/games/{g['id']}/name?token={watch}", {"name": "spy"})[0] == 403
    assert api.request("POST", f"/api/games/{g['id']}/name?token={t0}", {"name": ""})[1]["name"] == ""
    assert api.request("GET", f"/api/games/{g['id']}/snapshot?token={t1}")[1]["players"][0]["label"] == "P0"
    assert clean_name("a\u0000b\tc") == "a b c"
    with pytest.raises(BadInput):
        clean_name(["x"])


def test_a_rematch_is_the_same_table_once_the_game_is_over(api, server):
    g = api.create("climbers", seats=["human", "ai:random"], seed=5, options={"max_rounds": 1})
    t0 = g["seats"][0]["token"]
    assert api.request("POST", f"/api/games/{g['id']}/rematch?token={t0}", {})[0] == 409  # still running
    while not api.state(g["id"], t0)["over"]:
        st = api.state(g["id"], t0)
        if st["to_move"] == 0:
            api.move(g["id"], t0, "pass" if "pass" in st["legal_moves"] else st["legal_moves"][0])
        else:
            time.sleep(0.05)
    assert api.request("POST", f"/api/games/{g['id']}/rematch?token={t0}", {"x": 1})[0] == 400
    status, first = api.request("POST", f"/api/games/{g['id']}/rematch?token={t0}", {})
    again = api.request("POST", f"/api/games/{g['id']}/rematch?token={t0}", {})[1]
    assert status == 201 and first == again  # asked twice, one rematch
    row = server.server.tables[first["id"]].row
    assert (row.game, row.seats, row.options) == ("climbers", ["human", "ai:random"], {"max_rounds": 1})
    snap = api.request("GET", f"/api/games/{g['id']}/snapshot?token={t0}")[1]
    assert snap["rematch"] == first["url"]
    watch = g["spectator_url"].split("token=")[1]
    spectator = api.request("GET", f"/api/games/{g['id']}/snapshot?token={watch}")[1]["rematch"]
    assert first["id"] in spectator and spectator != first["url"]  # the spectators get the spectators' link
