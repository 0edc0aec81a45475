"""The physical model's one data type: an axis-aligned solid box of uniform density on the table z = 0."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class Box:
    """An axis-aligned box: `lo` is its min corner and `size` its extents (metres), `mass` in kg.

    The centre of mass is the box centre (uniform density). Any sizes and masses are accepted, so claims about
    builds beyond the game's blocks can be checked too.
    """

    id: str
    lo: Vec3
    size: Vec3
    mass: float

    def __post_init__(self) -> None:
        if len(self.lo) != 3 or len(self.size) != 3:
            raise ValueError(f"box {self.id}: lo and size need 3 coordinates")
        if min(self.size) <= 0 or self.mass <= 0:
            raise ValueError(f"box {self.id}: sizes and mass must be positive")

    @property
    def hi(self) -> Vec3:
        """The max corner."""
        return (self.lo[0] + self.size[0], self.lo[1] + self.size[1], self.lo[2] + self.size[2])

    @property
    def centre(self) -> Vec3:
        """The centre of mass."""
        return (self.lo[0] + self.size[0] / 2, self.lo[1] + self.size[1] / 2, self.lo[2] + self.size[2] / 2)


def remove(boxes: Iterable[Box], ids: Iterable[str]) -> list[Box]:
    """What-if: the build without the boxes named in `ids` (unknown ids raise KeyError)."""
    boxes = list(boxes)
    gone = set(ids)
    unknown = gone - {b.id for b in boxes}
    if unknown:
        raise KeyError(f"no box with id {sorted(unknown)}")
    return [b for b in boxes if b.id not in gone]
