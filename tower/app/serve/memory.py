"""Memory the server's process frees goes back to the system (glibc's allocator, Linux).

A Climbers position of 200 cubes works out ~30 MiB of moves and tables; freed, most of it stayed in the process:
glibc raises its threshold for serving large blocks from the heap each time such a block is freed, after which
they come from heaps that fragment, and the heaps of the game threads are only trimmed when their top is free. So
at start the threshold is fixed (`tune`: blocks of 128 KiB and more are mapped apart and unmapped when freed), and
after the sweep made positions forget their work the heaps are trimmed (`give_back`). Elsewhere both do nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger("tower.serve")

M_MMAP_THRESHOLD = -3  # mallopt's parameter number (malloc.h)
MMAP_THRESHOLD = 128 * 1024


def _libc():
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        libc.mallopt, libc.malloc_trim  # noqa: B018  (glibc only)
        return libc
    except (OSError, AttributeError, TypeError):
        return None


def tune() -> bool:
    """Fix the allocator's threshold for mapping large blocks apart (whether it could be)."""
    libc = _libc()
    return bool(libc is not None and libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def give_back() -> bool:
    """Return the free memory of the allocator's heaps to the system (whether any was)."""
    libc = _libc()
    return bool(libc is not None and libc.malloc_trim(0))
