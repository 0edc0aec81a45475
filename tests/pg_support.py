"""A throwaway PostgreSQL cluster for the server's tests: `initdb` in a temporary folder, listening on a Unix socket
in that folder only (no TCP port, so xdist workers never collide), stopped at the end of the session.

PostgreSQL refuses to run as root: where the tests run as root, the cluster runs as the `postgres` user (`runuser`).
Where neither `initdb` nor psycopg is found the PostgreSQL variants are skipped (`.ci/run` installs both).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest


def pg_bin(name: str) -> str | None:
    """A PostgreSQL program: on the PATH, or where Debian puts it (/usr/lib/postgresql/NN/bin)."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    return versions[-1] if versions else None


class Cluster:
    """A running cluster; `database()` makes a fresh database and gives its URL."""

    def __init__(self) -> None:
        initdb, pg_ctl = pg_bin("initdb"), pg_bin("pg_ctl")
        if not initdb or not pg_ctl:
            pytest.skip("PostgreSQL's initdb is not installed (.ci/run installs Debian's postgresql)")
        pytest.importorskip("psycopg")
        self.pg_ctl = pg_ctl
        self.dir = Path(tempfile.mkdtemp(prefix="twpg"))  # short: a socket's path is at most 107 bytes
        self.run_as: list[str] = []
        if os.geteuid() == 0:  # initdb refuses root
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                pytest.skip("running as root and there is no postgres user for PostgreSQL")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self.run_as = ["runuser", "-u", "postgres", "--"]
        data = self.dir / "data"
        subprocess.run([*self.run_as, initdb, "-D", str(data), "-A", "trust", "-U", "tower", "-E", "UTF8",
                        "--no-sync"], check=True, capture_output=True)
        # fsync stays on: the tests' durability is the real one
        subprocess.run([*self.run_as, pg_ctl, "-D", str(data), "-l", str(self.dir / "log"), "-w", "-t", "60", "-o",
                        f"-c listen_addresses='' -k {self.dir} -c max_connections=200", "start"], check=True,
                       capture_output=True)
        self.data = data
        self.count = 0

    def database(self, name: str | None = None) -> str:
        import psycopg

        self.count += 1
        name = name or f"t{os.getpid()}_{self.count}"
        with psycopg.connect(f"postgresql://tower@/postgres?host={self.dir}", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://tower@/{name}?host={self.dir}"

    def stop(self) -> None:
        subprocess.run([*self.run_as, self.pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "stop"],
                       capture_output=True)
        for _ in range(50):  # its last processes may still be writing as they exit: until the folder is gone
            shutil.rmtree(self.dir, ignore_errors=True)
            if not self.dir.exists():
                return
            time.sleep(0.1)
