"""The browser client ships with the package and loads nothing from another host: three.js is vendored at a
pinned version (hashes checked), every page and script refers to this server only, the pages carry a strict
Content-Security-Policy, and pyproject.toml puts every static file into the package."""

from __future__ import annotations

import fnmatch
import hashlib
import re
import tomllib
from pathlib import Path

from serve_support import ROOMY  # noqa: E402

from tower.app.serve.client import Client  # noqa: E402
from tower.app.serve.http import STATIC  # noqa: E402
from tower.app.serve.run import ServerThread  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
VENDOR = STATIC / "vendor" / "three"
OWN = [p for p in STATIC.rglob("*") if p.is_file() and VENDOR not in p.parents]


def test_three_js_is_the_pinned_version_with_its_licence():
    table = dict(re.findall(r"\| (\S+) \| ([0-9a-f]{64}) \|", (VENDOR / "README.md").read_text()))
    assert set(table) == {"three.module.min.js", "OrbitControls.js", "LICENSE", "loaders/GLTFLoader.js",
                          "utils/BufferGeometryUtils.js"}
    for name, digest in table.items():
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, name
    text = (VENDOR / "three.module.min.js").read_text()
    name = re.search(r"(\w+) as REVISION\b", text).group(1)  # the build exports its revision under a short name
    assert f'const {name}="170"' in text
    assert "MIT License" in (VENDOR / "LICENSE").read_text()


def test_no_page_or_script_refers_to_another_host():
    for path in OWN:
        text = path.read_text()
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text, re.I), path
    # three.js itself imports nothing from outside, and OrbitControls only 'three' (the pages' import map)
    assert not re.search(r"""import\s*\(?\s*['"]https?:""", (VENDOR / "three.module.min.js").read_text())
    imports = re.findall(r"from '([^']+)'", (VENDOR / "OrbitControls.js").read_text())
    assert imports == ["three"]


def test_each_script_of_the_client_is_a_module_of_one_role_under_700_lines():
    """The page scripts stay readable: split by role (lab.js: the page; labdraw.js, labpalette.js, laboverlays.js
    its drawing, palette and overlays), none over 700 lines, and every module a page imports exists."""
    scripts = [p for p in OWN if p.suffix == ".js"]
    assert {"lab.js", "labdraw.js", "labpalette.js", "laboverlays.js"} <= {p.name for p in scripts}
    for path in scripts:
        assert len(path.read_text().splitlines()) <= 700, path
        for name in re.findall(r"from '\./([^']+)'", path.read_text()):
            assert (path.parent / name).is_file(), (path, name)


def test_every_static_file_is_package_data():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    globs = patterns["tower.app.serve"]
    base = STATIC.parent
    for path in STATIC.rglob("*"):
        if path.is_file():
            rel = path.relative_to(base).as_posix()
            assert any(fnmatch.fnmatch(rel, g) and rel.count("/") == g.count("/") for g in globs), rel


def test_pages_are_served_with_a_strict_content_security_policy(tmp_path):
    with ServerThread(str(tmp_path / "g.sqlite"), ai_pause=0, workers=1, limits=ROOMY) as srv:
        api = Client(srv.url)
        for path in ("/", "/play/abc", "/replay", "/replay/abc"):
            api.raw("GET", path)
            conn = api._connection()
            conn.request("GET", path)
            resp = conn.getresponse()
            body = resp.read().decode()
            csp = resp.getheader("Content-Security-Policy")
            assert resp.status == 200 and "<html" in body
            assert "script-src 'self'" in csp and "unsafe-inline" not in csp.split("style-src")[0]
            assert resp.getheader("Referrer-Policy") == "no-referrer"  # a seat's token never leaves in a Referer
        status, data = api.raw("GET", "/static/vendor/three/three.module.min.js")
        assert status == 200 and data == (VENDOR / "three.module.min.js").read_bytes()
