"""Certificates of statics verdicts (physics.certificate) checked by the numpy-only verifier (physics.verifier):
start towers, the edge builds, interlocked builds and the friction-bearing builds verify; tampered ones are
refused with the check that failed; the verifier shares no code with the judge; `tower check --certificate` and
`tower verify` as a user runs them."""

from __future__ import annotations

import ast
import copy
import json
import sys
from pathlib import Path

import pytest

import physics
from physics.certificate import certificate
from physics.model import Box
from physics.verifier import BadCertificate, verify

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import bench_statics_scale as bench  # noqa: E402
from test_physics_friction import CASES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def checked(boxes: list[Box], mu: float = 0.5) -> tuple[dict, physics.StaticsResult]:
    """The certificate of a build's verdict, through JSON as a file carries it, verified."""
    r = physics.judge_statics(boxes, mu=mu)
    doc = json.loads(json.dumps(certificate(boxes, mu=mu, result=r)))
    rep = verify(doc)
    assert rep.ok, rep.lines()
    assert doc["claim"] == ("stands" if r.stable else "falls")
    return doc, r


def test_start_towers_verify():
    for seed in range(6):
        doc, r = checked(bench.start_tower(seed))
        assert r.stable and doc["claim"] == "stands" and len(doc["contacts"]) == r.contacts


@pytest.mark.slow
def test_500_start_towers_verify():
    for seed in range(500):
        checked(bench.start_tower(seed))


def test_edge_builds_verify_standing_and_falling():
    claims = set()
    for k, (_name, boxes) in enumerate(bench.edge_builds()):
        doc, _ = checked(boxes)
        claims.add(doc["claim"])
        if k % 4 == 0:
            checked(bench.beside_slab(boxes))  # judged by parts
    assert claims == {"stands", "falls"}


def test_interlocked_builds_verify():
    for i in range(10):
        name, boxes = bench.interlocked_build(i)
        if len(boxes) <= 120:
            checked(boxes)


@pytest.mark.slow
def test_the_interlocked_set_verifies():
    for i in range(60):
        checked(bench.interlocked_build(i)[1])
    for i in range(20):
        checked(bench.large_free_build(i))


@pytest.mark.parametrize("name,boxes,mu", CASES, ids=[c[0] for c in CASES])
def test_friction_bearing_builds_verify_both_ways(name, boxes, mu):
    assert checked(boxes, 1.1 * mu)[0]["claim"] == "stands"
    assert checked(boxes, 0.9 * mu)[0]["claim"] == "falls"


# --- tampering --------------------------------------------------------------------------------------------------

def _standing():
    doc, _ = checked(bench.start_tower(3))
    return doc


def _falling():
    boxes = [physics.grid_box("a", (0, 0, 0), (2, 2, 2)), physics.grid_box("b", (1, 0, 2), (4, 2, 1))]
    doc, r = checked(boxes)
    assert not r.stable
    return doc


def _loaded(doc: dict) -> tuple[int, int]:
    """(contact, corner) of the largest force of a standing certificate."""
    best = max(((abs(f["force"][2]) + abs(f["force"][0]), ci, fi) for ci, c in enumerate(doc["contacts"])
                for fi, f in enumerate(c["forces"])))
    return best[1], best[2]


def _move(doc: dict, block: str, axis: int, metres: float) -> dict:
    doc = copy.deepcopy(doc)
    for b in doc["boxes"]:
        if b["id"] == block:
            b["lo"][axis] += metres
    return doc


def refused(doc: dict, check: str | tuple[str, ...]) -> str:
    rep = verify(doc)
    assert not rep.ok and rep.failed.startswith(check), rep.failed
    return rep.failed


def test_a_removed_force_is_refused_naming_the_block():
    doc = _standing()
    ci, fi = _loaded(doc)
    block = doc["contacts"][ci]["b"]
    del doc["contacts"][ci]["forces"][fi]
    assert block in refused(doc, "every block balanced") or doc["contacts"][ci]["a"] in verify(doc).failed


def test_a_flipped_force_is_refused():
    doc = _standing()
    ci, fi = _loaded(doc)
    f = doc["contacts"][ci]["forces"][fi]
    f["force"] = [-v for v in f["force"]]
    refused(doc, "compression only")


def test_a_block_moved_1_mm_is_refused():
    # in a packed tower a block moved sideways runs into a neighbour, or its weight and the forces on it no longer
    # balance; moved up, its supports' forces act where no faces touch
    doc = _standing()
    why = ("every block balanced", "no two boxes overlap", "no box below the table", "force points inside",
           "forces act on touching")
    failed = set()
    for b in doc["boxes"]:
        for axis in (0, 1, 2):
            for sign in (1, -1):
                failed.add(refused(_move(doc, b["id"], axis, sign * 0.001), why).split(":")[0])
    assert {"force points inside their contact areas (m)", "forces act on touching faces"} <= failed
    # a block moved along with every force point on it (the same forces, 1 mm off): its weight's moment is left
    moved = _move(doc, "g1", 0, 0.001)
    for c in moved["contacts"]:
        if "g1" in (c["a"], c["b"]):
            for f in c["forces"]:
                f["point"][0] += 0.001
    assert not verify(moved).ok


def test_forces_outside_the_contact_or_the_cone_are_refused():
    doc = copy.deepcopy(_standing())
    ci, fi = _loaded(doc)
    doc["contacts"][ci]["forces"][fi]["point"][0] += 0.01
    refused(doc, "force points inside")
    doc = copy.deepcopy(_standing())
    f = doc["contacts"][ci]["forces"][fi]["force"]
    f[0] += 0.6 * f[2] + 1e-3
    assert not verify(doc).ok  # friction beyond the cone (or, with it, the balance)


def test_a_falling_certificate_tampered_is_refused():
    doc = _falling()
    flipped = copy.deepcopy(doc)
    for m in flipped["mechanism"]:
        m["velocity"] = [-v for v in m["velocity"]]
        m["angular_velocity"] = [-v for v in m["angular_velocity"]]
    refused(flipped, "no contact corner closes")
    # b moved 1 mm back over its support: the overhang's mechanism now drives b's bottom into a
    refused(_move(doc, "b", 0, -0.001), "no contact corner closes")
    # a block lowered 1 mm into the one under it
    refused(_move(doc, "b", 2, -0.001), "no two boxes overlap")
    still = copy.deepcopy(doc)
    still["mechanism"] = []
    refused(still, "gravity does positive work")


def test_a_certificate_at_another_coefficient_is_refused():
    name, boxes, mu = CASES[1]  # the lean
    doc, _ = checked(boxes, 1.1 * mu)
    doc["model"]["mu"] = 0.9 * mu
    refused(doc, "friction inside the cone")
    doc, _ = checked(boxes, 0.9 * mu)
    doc["model"]["mu"] = 1.1 * mu
    refused(doc, "no contact corner closes")


def test_malformed_certificates_are_bad_input():
    doc = _standing()
    for change, where in ((lambda d: d.pop("boxes"), "$"), (lambda d: d["boxes"][0].update(lo=[0, 0]), "$.boxes[0].lo"),
                          (lambda d: d["contacts"][0].update(b="nobody"), "$.contacts[0]"),
                          (lambda d: d.update(format="tower-build/1"), "$.format")):
        bad = copy.deepcopy(doc)
        change(bad)
        with pytest.raises(BadCertificate, match=f"^{where.replace('$', '[$]').replace('[0]', '.0.')}"):
            verify(bad)


def test_the_verifier_shares_no_code_with_the_judge():
    tree = ast.parse((ROOT / "physics" / "verifier.py").read_text())
    imported = {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert imported <= {"__future__", "dataclasses", "typing", "numpy"}, imported
    assert len((ROOT / "physics" / "verifier.py").read_text().splitlines()) < 300


# --- the command line ----------------------------------------------------------------------------------------

def test_tower_check_certificate_and_tower_verify(tower_cli, tmp_path):
    from tower.climbers.build import build_to_json
    from tower.climbers.setup import random_start_tower

    build = tmp_path / "t.json"
    build.write_text(json.dumps(build_to_json(random_start_tower(2))))
    cert = tmp_path / "c.json"
    proc = tower_cli(["check", str(build), "--statics-only", "--certificate", str(cert)])
    assert proc.returncode == 0 and "claim: stands" in proc.stdout, proc.stderr
    proc = tower_cli(["verify", str(cert), "--build", str(build)])
    assert proc.returncode == 0 and proc.stdout.splitlines()[-2] == "verified", proc.stdout
    assert "worst residual" in proc.stdout and "every block balanced" in proc.stdout
    doc = json.loads(cert.read_text())
    doc["boxes"][5]["lo"][0] += 0.001
    cert.write_text(json.dumps(doc))
    proc = tower_cli(["verify", str(cert)])
    assert proc.returncode == 1 and proc.stdout.splitlines()[-1].startswith("refuted: "), proc.stdout
    cert.write_text(json.dumps(doc | {"claim": "wobbles"}))
    proc = tower_cli(["verify", str(cert)])
    assert proc.returncode == 2 and proc.stdout == "" and len(proc.stderr.splitlines()) == 1
    assert "claim" in proc.stderr and "Traceback" not in proc.stderr
    proc = tower_cli(["check", str(build), "--statics-only", "--certificate", str(tmp_path / "no" / "c.json")])
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1


def test_a_falling_build_s_certificate_from_the_command_line(tower_cli, tmp_path):
    build = tmp_path / "f.json"
    build.write_text(json.dumps({"format": "tower-build/1", "blocks": [
        {"id": "a", "origin": [0, 0, 0], "size": [2, 2, 2]}, {"id": "b", "origin": [1, 0, 2], "size": [2, 2, 4]}]}))
    cert = tmp_path / "c.json"
    proc = tower_cli(["check", str(build), "--statics-only", "--json", "--certificate", str(cert)])
    assert proc.returncode == 1 and json.loads(proc.stdout)["stability"]["verdict"] == "collapses"
    proc = tower_cli(["verify", str(cert), "--build", str(build)])
    assert proc.returncode == 0 and "claim: falls" in proc.stdout, proc.stdout
    other = tmp_path / "g.json"
    other.write_text(build.read_text().replace('"origin": [1, 0, 2]', '"origin": [0, 0, 2]'))
    proc = tower_cli(["verify", str(cert), "--build", str(other)])
    assert proc.returncode == 1 and "block b is not where" in proc.stdout
