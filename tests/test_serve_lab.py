"""The lab's JSON API (`/api/lab`, docs/lab.md) on a real server: edits, refusals with their status and rule (and
nothing changed), undo/redo, the block cap, uploads, the drop, the explanations, and a lab link that outlives
the server; the lab's verdict of a saved build equals `tower check`'s."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.serve_support import ROOMY
from tower.app.serve.run import ServerThread
from tower.climbers.build import build_to_json
from tower.climbers.setup import random_start_tower


class Api:
    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)

    def call(self, method: str, path: str, body=None, raw: bytes | None = None) -> tuple[int, object]:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        if method == "POST" and data is None:
            data = b"{}"  # a POST is JSON, also one without anything to say (the server's CSRF rule)
        self.conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
        resp = self.conn.getresponse()
        text = resp.read().decode()
        try:
            return resp.status, json.loads(text)
        except ValueError:
            return resp.status, text


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerThread(str(tmp_path_factory.mktemp("lab") / "games.sqlite"), ai_pause=0, workers=1,
                      limits=ROOMY) as srv:
        yield srv


@pytest.fixture
def api(server):
    return Api(server.url)


def new_lab(api: Api, **body) -> dict:
    status, lab = api.call("POST", "/api/lab", body)
    assert status == 201, lab
    return lab


def edit(api: Api, lab: dict, op: dict) -> tuple[int, dict]:
    return api.call("POST", f"/api/lab/{lab['id']}/edits", op)


def test_a_lab_is_created_edited_undone_and_redone(api):
    lab = new_lab(api)
    assert lab["build"]["blocks"] == [] and lab["url"] == f"/lab/{lab['id']}" and not lab["can_undo"]
    assert lab["analysis"]["stability"] is None
    status, s = edit(api, lab, {"op": "add", "kind": "cube", "origin": [0, 0, 0]})
    assert status == 200 and s["did"] == "added cube c1 at [0, 0, 0]"
    assert s["analysis"]["stability"]["verdict"] == "stable" and s["scene"]["format"] == "tower-scene/1"
    assert s["can_undo"] and s["undo"] == "added cube c1 at [0, 0, 0]"
    status, s = api.call("POST", f"/api/lab/{lab['id']}/undo")
    assert status == 200 and s["build"]["blocks"] == [] and s["can_redo"]
    status, s = api.call("POST", f"/api/lab/{lab['id']}/redo")
    assert status == 200 and len(s["build"]["blocks"]) == 1
    status, again = api.call("GET", f"/api/lab/{lab['id']}")
    assert status == 200 and again["build"] == s["build"]


def test_refusals_have_their_status_and_rule_and_change_nothing(api):
    lab = new_lab(api, start="random", seed=1)
    path = f"/api/lab/{lab['id']}"
    first = lab["build"]["blocks"][0]
    cases = [
        ({"op": "add", "kind": "cube", "origin": first["origin"]}, 409, "overlap"),
        ({"op": "add", "kind": "cube", "origin": [0, 0, -2]}, 409, "below-table"),
        ({"op": "add", "kind": "cube", "origin": [-40, -40, 7]}, 409, "unsupported"),
        ({"op": "add", "kind": "cube", "origin": [500, 0, 0]}, 409, "off-table"),
        ({"op": "move", "block": "nope", "origin": [0, 0, 0]}, 409, "no-block"),
        ({"op": "add", "kind": "cube", "origin": [0, 0, "high"]}, 400, None),
        ([1, 2], 400, None),
    ]
    for op, want, rule in cases:
        status, answer = edit(api, lab, op)
        assert status == want, (op, answer)
        assert isinstance(answer["error"], str) and "\n" not in answer["error"]
        if rule:
            assert answer["rule"] == rule
    assert api.call("POST", f"{path}/edits", raw=b"{not json")[0] == 400
    assert api.call("POST", f"{path}/undo")[0] == 409  # nothing to undo yet
    for what in ("undo", "drop", "edits"):  # a form from another site's page does nothing
        api.conn.request("POST", f"{path}/{what}", body=b"op=delete",
                         headers={"Content-Type": "application/x-www-form-urlencoded"})
        resp = api.conn.getresponse()
        assert resp.status == 415 and json.loads(resp.read())["rule"] == "not-json"
    assert api.call("GET", "/api/lab/no-such-lab")[0] == 404
    assert api.call("POST", "/api/lab/no-such-lab/edits", {"op": "add"})[0] == 404
    assert api.call("POST", "/api/lab", {"start": "castle"})[0] == 400
    status, now = api.call("GET", path)
    assert now["build"] == lab["build"] and now["edits"] == 0


def test_the_places_the_rules_refuse_are_told_before_the_edit(api):
    """POST /api/lab/ID/refusals: each place of the block in hand that an edit there would be refused at, with the
    refusal's own words; the edit then gets exactly that answer."""
    lab = new_lab(api)
    edit(api, lab, {"op": "add", "kind": "cube", "origin": [0, 0, 0]})
    faces = ["red", "yellow", "dark-blue", "light-blue", "purple", "grey"]
    hand = {"block": "new", "kind": "cube", "shapes": [{"size": [2, 2, 2], "top": "purple", "faces": faces}],
            "area": [-4, -4, 6, 6]}
    status, got = api.call("POST", f"/api/lab/{lab['id']}/refusals", hand)
    assert status == 200 and got["edits"] == 1 and got["elsewhere"] == [None]  # the bare table: fine
    half_off = "block new 1,0,2 2x2x2 purple"
    assert got["refused"][half_off] == ("unsupported: the new cube has 2 of 4 footprint cells with nothing under "
                                        "them (hole or overhang)")
    assert "block new 0,0,2 2x2x2 purple" not in got["refused"]  # right on top: fine
    assert not any(" 3,3,0 " in t for t in got["refused"])  # on the table: fine
    status, refused = edit(api, lab, {"op": "add", "kind": "cube", "origin": [1, 0, 2], "size": [2, 2, 2],
                                      "faces": dict(zip(("+x", "-x", "+y", "-y", "+z", "-z"), faces, strict=True))})
    assert status == 409 and f"{refused['rule']}: {refused['error']}" == got["refused"][half_off]
    # the block moved: the cube itself, its own place left out
    status, got = api.call("POST", f"/api/lab/{lab['id']}/refusals", {**hand, "block": "c1", "kind": ""})
    assert status == 200 and not got["refused"]  # alone on the table: it may go anywhere
    status, answer = api.call("POST", f"/api/lab/{lab['id']}/refusals", {**hand, "block": "zz"})
    assert status == 409 and answer["rule"] == "no-block"  # as an edit of it would be refused
    for bad, where in [({**hand, "area": [0, 0, 500, 2]}, "$.area"), ({**hand, "shapes": []}, "$.shapes"),
                       ({**hand, "kind": "beam"}, "$.kind"),
                       ({**hand, "shapes": [{"size": [2, 2, 2], "top": "red", "faces": ["red"] * 5}]},
                        "$.shapes[0].faces")]:
        status, answer = api.call("POST", f"/api/lab/{lab['id']}/refusals", bad)
        assert status == 400 and answer["where"] == where, (bad, answer)


def test_a_whole_table_refused_alike_is_said_once_and_the_answer_stays_small(api):
    """Where every placement on the bare table is refused (a grey block with coloured faces; a move that leaves
    the block above unsupported), a whole-table area answers with that refusal once per shape (`elsewhere`) and
    lists only the placements touching the build: well under `answer_bytes` (it was 4.4 MB, a 500)."""
    from tower.app.lab.controller import kind_sizes

    lab = new_lab(api)
    edit(api, lab, {"op": "add", "kind": "cube", "origin": [0, 0, 0]})
    edit(api, lab, {"op": "add", "kind": "cube", "origin": [0, 0, 2]})
    shapes = [{"size": list(size), "top": top, "faces": [top] * 6} for top in ("grey", "red")
              for size in kind_sizes("grey")]
    hand = {"block": "new", "kind": "grey", "shapes": shapes, "area": [-100, -100, 100, 100]}
    status, got = api.call("POST", f"/api/lab/{lab['id']}/refusals", hand)
    assert status == 200 and len(json.dumps(got)) < min(20_000, ROOMY.answer_bytes // 100), len(json.dumps(got))
    assert got["elsewhere"][:3] == [None] * 3 and all(w.startswith("face-colouring: ") for w in got["elsewhere"][3:])
    status, refused = edit(api, lab, {"op": "add", "kind": "grey", "origin": [90, -90, 0], "size": [2, 2, 6],
                                      "faces": dict.fromkeys(("+x", "-x", "+y", "-y", "+z", "-z"), "red")})
    assert status == 409 and f"{refused['rule']}: {refused['error']}" == got["elsewhere"][3]
    cube = {"size": [2, 2, 2], "top": "purple", "faces": ["red", "yellow", "dark-blue", "light-blue", "purple", "grey"]}
    status, got = api.call("POST", f"/api/lab/{lab['id']}/refusals", {**hand, "block": "c1", "kind": "",
                                                                       "shapes": [cube]})
    assert status == 200 and len(json.dumps(got)) < 20_000 and got["elsewhere"][0].startswith("unsupported: block c2")
    status, refused = edit(api, lab, {"op": "move", "block": "c1", "origin": [-90, 90, 0]})
    assert status == 409 and f"{refused['rule']}: {refused['error']}" == got["elsewhere"][0]


def test_a_bad_upload_names_the_place_and_the_lab_is_unchanged(api):
    lab = new_lab(api)
    edit(api, lab, {"op": "add", "kind": "cube", "origin": [0, 0, 0]})
    bad = {"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0], "size": [2, 2, 3]}]}
    status, answer = edit(api, lab, {"op": "load", "build": bad})
    assert status == 400 and answer["where"] == "$.blocks[0].size" and "is no block" in answer["error"]
    status, now = api.call("GET", f"/api/lab/{lab['id']}")
    assert len(now["build"]["blocks"]) == 1
    status, loaded = edit(api, lab, {"op": "load", "build": build_to_json(random_start_tower(4))})
    assert status == 200 and len(loaded["build"]["blocks"]) == 35


def test_the_block_cap_is_the_servers_limit(api, server):
    cap = server.server.limits.blocks_per_build
    blocks = [{"origin": [2 * (i % 50) - 90, 2 * (i // 50) - 90, 0], "size": [2, 2, 1]} for i in range(cap + 1)]
    status, answer = api.call("POST", "/api/lab", {"build": {"format": "tower-build/1", "blocks": blocks}})
    assert status == 409 and answer["rule"] == "too-many-blocks"  # past the document's maxItems: refused
    lab = new_lab(api, build={"format": "tower-build/1", "blocks": blocks[:cap]}, rules="free")
    status, answer = edit(api, lab, {"op": "add", "kind": "cube", "origin": [95, 95, 0]})
    assert status == 409 and answer["rule"] == "too-many-blocks"


def test_the_rule_set_decides_what_is_refused(api):
    lab = new_lab(api)
    edit(api, lab, {"op": "add", "kind": "cube", "origin": [0, 0, 0]})
    floating = {"op": "add", "kind": "cube", "origin": [1, 0, 2]}
    assert edit(api, lab, floating)[1]["rule"] == "unsupported"
    status, s = api.call("POST", f"/api/lab/{lab['id']}/rules", {"rules": "flag"})
    assert status == 200 and s["rules"] == "flag"
    status, s = edit(api, lab, floating)
    assert status == 200 and not s["analysis"]["legal"]
    assert [v["rule"] for v in s["analysis"]["violations"]] == ["unsupported"]
    assert s["scene"]["blocks"][1]["problems"] == ["unsupported"]
    assert api.call("POST", f"/api/lab/{lab['id']}/rules", {"rules": "anarchy"})[0] == 400


def test_drop_forces_removal_and_push(api):
    lab = new_lab(api, rules="flag")
    edit(api, lab, {"op": "add", "kind": "cube", "origin": [0, 0, 0]})
    edit(api, lab, {"op": "add", "kind": "double-cube", "origin": [1, 0, 2], "size": [4, 2, 2]})
    status, drop = api.call("POST", f"/api/lab/{lab['id']}/drop")
    assert status == 200 and drop["moved"] == ["d1"] and drop["stability"]["verdict"] == "collapses"
    frames = drop["scene"]["frames"]  # the trajectory is the scene's animation (tower-scene/1)
    assert frames[0]["poses"]["d1"][0] == [3.0, 1.0, 3.0] and drop["scene"]["moved"] == ["d1"]
    assert frames[-1]["poses"]["d1"][0][2] < 3.0
    status, forces = api.call("GET", f"/api/lab/{lab['id']}/forces")
    assert status == 200 and forces["forces"]["stands"] is False and forces["words"]
    api.call("POST", f"/api/lab/{lab['id']}/undo")
    status, forces = api.call("GET", f"/api/lab/{lab['id']}/forces")
    assert forces["forces"]["stands"] and forces["forces"]["contacts"][0]["a"] == "table"
    status, removal = api.call("GET", f"/api/lab/{lab['id']}/removal")
    assert status == 200 and removal["removal"]["classes"]["safe"] == ["c1"]
    status, push = api.call("POST", f"/api/lab/{lab['id']}/push", {"block": "c1", "direction": "+x"})
    assert status == 200 and push["push"]["block"] == "c1" and push["push"]["force_n"] > 0
    assert api.call("POST", f"/api/lab/{lab['id']}/push", {"block": "c1", "direction": "up"})[0] == 400
    assert api.call("POST", f"/api/lab/{lab['id']}/push", {"block": "zz", "direction": "+x"})[0] == 409


def test_the_saved_build_gets_the_same_verdict_from_tower_check(api, tmp_path):
    lab = new_lab(api, start="random", seed=5, rules="flag")
    top = max(lab["build"]["blocks"], key=lambda b: b["origin"][2] + b["size"][2])
    edit(api, lab, {"op": "move", "block": top["id"], "origin": [top["origin"][0] + 1, top["origin"][1],
                                                                  top["origin"][2]]})
    for _ in range(2):
        status, state = api.call("GET", f"/api/lab/{lab['id']}")
        api.conn.request("GET", f"/api/lab/{lab['id']}/build")
        resp = api.conn.getresponse()
        assert resp.status == 200 and "attachment" in resp.getheader("Content-Disposition")
        path = tmp_path / "saved.json"
        path.write_bytes(resp.read())
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
        out = subprocess.run([sys.executable, "-m", "tower", "check", "--json", "--statics-only", str(path)],
                             capture_output=True, text=True, env=env, timeout=120)
        doc = json.loads(out.stdout)
        assert doc["stability"]["verdict"] == state["analysis"]["stability"]["verdict"]
        assert doc["legal"] == state["analysis"]["legal"]
        assert [v["rule"] for v in doc["violations"]] == [v["rule"] for v in state["analysis"]["violations"]]
        api.call("POST", f"/api/lab/{lab['id']}/undo")


def test_a_lab_link_outlives_the_server(tmp_path):
    db = str(tmp_path / "games.sqlite")
    with ServerThread(db, ai_pause=0, workers=1, limits=ROOMY) as srv:
        api = Api(srv.url)
        lab = new_lab(api)
        edit(api, lab, {"op": "add", "kind": "grey", "origin": [0, 0, 0]})
    with ServerThread(db, ai_pause=0, workers=1, limits=ROOMY) as srv:
        status, again = Api(srv.url).call("GET", f"/api/lab/{lab['id']}")
        assert status == 200 and [b["id"] for b in again["build"]["blocks"]] == ["g1"]
        assert not again["can_undo"]  # the history stays with the server that made it
        conn = http.client.HTTPConnection(*urlsplit(srv.url).netloc.split(":"))
        conn.request("GET", f"/lab/{lab['id']}")
        page = conn.getresponse()
        assert page.status == 200 and b"lab.js" in page.read()
        conn.request("GET", "/")
        assert b'href="/lab"' in conn.getresponse().read()


def test_hostile_edits_get_a_clean_answer_never_a_crash(api):
    """Random edits (hypothesis): every answer is 200 or a JSON refusal (400/409) and the lab still answers."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    lab = new_lab(api, start="random", seed=2, rules="flag")
    ids = [b["id"] for b in lab["build"]["blocks"]]
    value = st.one_of(st.integers(-300, 300), st.floats(allow_nan=False), st.text(max_size=8), st.none(),
                      st.lists(st.integers(-300, 300), max_size=4), st.sampled_from(ids + ["red", "z", "cube"]))
    ops = st.fixed_dictionaries({"op": st.sampled_from(["add", "move", "turn", "delete", "figure", "unfigure",
                                                        "stone", "unstone", "recolour", "load", "fly"])},
                                optional={k: value for k in ("kind", "origin", "size", "top", "block", "axis",
                                                             "colour", "cell", "faces", "build", "id")})

    @settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
    @given(ops)
    def run(op):
        status, answer = edit(api, lab, op)
        assert status in (200, 400, 409), (op, status, answer)
        if status != 200:
            assert isinstance(answer["error"], str) and "\n" not in answer["error"]

    run()
    status, state = api.call("GET", f"/api/lab/{lab['id']}")
    assert status == 200 and state["analysis"]["words"]


def test_tower_lab_serves_on_loopback_and_says_where(tmp_path):
    import signal

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0], "size": [2, 2, 3]}]}')
    out = subprocess.run([sys.executable, "-m", "tower", "lab", str(bad), "--no-browser"], capture_output=True,
                         text=True, env=env, timeout=60)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "$.blocks[0].size" in out.stderr
    start = tmp_path / "start.json"
    subprocess.run([sys.executable, "-m", "tower", "new", "-o", str(start)], check=True, env=env, timeout=60,
                   capture_output=True)
    proc = subprocess.Popen([sys.executable, "-m", "tower", "lab", str(start), "--no-browser", "--db",
                             str(tmp_path / "lab.sqlite")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert line.startswith("tower lab: open http://127.0.0.1:") and "/lab/" in line, line
        url = line.split("open ")[1].split(" in a browser")[0]
        parts = urlsplit(url)
        status, state = Api(f"http://{parts.netloc}").call("GET", "/api" + parts.path)
        assert status == 200 and len(state["build"]["blocks"]) == 35
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0


def test_the_replay_pages_offer_the_lab_for_a_construction_game_only():
    """The replay page shows *Open in the lab* when its document says the game is a construction game; the scene
    it sends then is a build the lab takes as it is."""
    from tower.app.serve.replay import replay_page
    from tower.games import new_game

    for game, players, construction in (("climbers", 2, True), ("diabolo", 3, False)):
        state = new_game(game, players, seed=4)
        for _ in range(3):
            state.apply(state.legal_moves()[0])
        doc = replay_page(f"test-{game}", state.record(), None, 0, 5)
        assert doc["construction"] is construction
    # what static/js/openlab.js makes of a Climbers scene is the position's build
    from tower.climbers.build import parse_build

    state = new_game("climbers", 2, seed=4)
    scene = replay_page("test-c", state.record(), None, 0, 1)["frames"][0]["scene"]
    faces = ("+x", "-x", "+y", "-y", "+z", "-z")
    doc = {"format": "tower-build/1",
           "blocks": [{"id": b["id"], "origin": b["origin"], "size": b["size"],
                       "faces": dict(zip(faces, b["faces"], strict=True))} for b in scene["blocks"]],
           "figures": [{"color": f["colour"], "cell": f["cell"]} for f in scene["figures"]],
           "stones": [{"color": t["colour"], "block": t["block"]} for t in scene["stones"]]}
    assert parse_build(json.loads(json.dumps(doc))) == state.to_build()


def test_the_quick_lane_starts_with_the_server_and_takes_a_small_builds_forces_and_pushes(tmp_path):
    """A fresh server's lab answers its first forces and push test in the quick lane (a worker started with the
    server, its judges already used once), not in a cold heavy worker at the lowest priority; a big build's
    forces stay heavy work."""
    from tower.app.serve.lab import LABS_KEY

    with ServerThread(str(tmp_path / "games.sqlite"), ai_pause=0, workers=1, limits=ROOMY) as srv:
        jobs = srv.runner.app[LABS_KEY].jobs
        assert jobs.quick.pools[0].running and not jobs.heavy.pools[0].running  # before any lab request
        api = Api(srv.url)
        six = {"format": "tower-build/1", "blocks": [
            {"id": f"c{k}", "origin": [2 * (k % 3), 0, 2 * (k // 3)], "size": [2, 2, 2]} for k in range(6)]}
        lab = new_lab(api, build=six)
        status, forces = api.call("GET", f"/api/lab/{lab['id']}/forces")
        assert status == 200 and forces["forces"]["stands"]
        status, push = api.call("POST", f"/api/lab/{lab['id']}/push", {"block": "c5", "direction": "+x"})
        assert status == 200 and push["words"]
        assert jobs.heavy.jobs == 0 and jobs.quick.jobs >= 3
        tower = new_lab(api, build=build_to_json(random_start_tower(0)))
        status, _ = api.call("GET", f"/api/lab/{tower['id']}/forces")
        assert status == 200 and jobs.heavy.jobs == 1
