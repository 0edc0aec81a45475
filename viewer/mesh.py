"""Meshes for the renderer as plain VTK poly data built from numpy arrays, and the few primitive shapes it needs.

The viewer talks to VTK directly instead of through PyVista's plotting layer: that layer imports matplotlib and
costs over a second before the first picture (measured in benchmarks/bench_viewer.py); VTK alone needs a few
hundred milliseconds. `Mesh` adds the handful of numpy views the renderer and the tests use.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk, numpy_to_vtkIdTypeArray, vtk_to_numpy
from vtkmodules.vtkCommonCore import vtkPoints, vtkStringArray
from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData


class Mesh(vtkPolyData):
    """vtkPolyData with numpy views of its points and cell arrays."""

    @property
    def n_points(self) -> int:
        return self.GetNumberOfPoints()

    @property
    def n_cells(self) -> int:
        return self.GetNumberOfCells()

    @property
    def points(self) -> np.ndarray:
        pts = self.GetPoints()
        return np.empty((0, 3)) if pts is None else vtk_to_numpy(pts.GetData())

    @points.setter
    def points(self, values: np.ndarray) -> None:
        self.SetPoints(_points(values))

    def cell_array(self, name: str) -> np.ndarray | None:
        array = self.GetCellData().GetArray(name)
        return None if array is None else vtk_to_numpy(array)

    def set_cell_array(self, name: str, values: np.ndarray) -> None:
        array = numpy_to_vtk(np.ascontiguousarray(values), deep=True)
        array.SetName(name)
        self.GetCellData().AddArray(array)

    def set_point_array(self, name: str, values: np.ndarray) -> None:
        array = numpy_to_vtk(np.ascontiguousarray(values), deep=True)
        array.SetName(name)
        self.GetPointData().AddArray(array)

    def shallow_copy(self, other: vtkPolyData) -> None:
        self.ShallowCopy(other)


def _points(values: np.ndarray) -> vtkPoints:
    pts = vtkPoints()
    pts.SetData(numpy_to_vtk(np.ascontiguousarray(values, dtype=np.float64), deep=True))
    return pts


def _cells(cells: np.ndarray) -> vtkCellArray:
    """Cells of equal size (an (N, k) index array) as a vtkCellArray."""
    cells = np.asarray(cells, dtype=np.int64)
    n, k = cells.shape
    out = vtkCellArray()
    out.SetData(numpy_to_vtkIdTypeArray(np.arange(0, (n + 1) * k, k, dtype=np.int64), deep=True),
                numpy_to_vtkIdTypeArray(cells.ravel().copy(), deep=True))
    return out


def faces_mesh(points: np.ndarray, faces: np.ndarray) -> Mesh:
    """Polygons of equal size: `faces` is (N, k) point indices."""
    mesh = Mesh()
    mesh.SetPoints(_points(points))
    mesh.SetPolys(_cells(faces))
    return mesh


def lines_mesh(points: np.ndarray, segments: np.ndarray) -> Mesh:
    """Line segments: `segments` is (N, 2) point indices."""
    mesh = Mesh()
    mesh.SetPoints(_points(points))
    mesh.SetLines(_cells(segments))
    return mesh


def labelled_points(points: np.ndarray, texts: Sequence[str], name: str = "label") -> Mesh:
    """Points carrying a string point array (for a label mapper)."""
    mesh = Mesh()
    mesh.SetPoints(_points(points))
    array = vtkStringArray()
    array.SetName(name)
    for text in texts:
        array.InsertNextValue(text)
    mesh.GetPointData().AddArray(array)
    return mesh


def merge(meshes: Sequence[Mesh]) -> Mesh:
    """The meshes one after another in one mesh (points not merged; cell arrays kept)."""
    from vtkmodules.vtkFiltersCore import vtkAppendPolyData

    meshes = [m for m in meshes if m.n_points]
    if not meshes:
        return Mesh()
    if len(meshes) == 1:
        return meshes[0]
    append = vtkAppendPolyData()
    for m in meshes:
        append.AddInputData(m)
    append.Update()
    out = Mesh()
    out.ShallowCopy(append.GetOutput())
    return out


def triangles(mesh: vtkPolyData) -> tuple[np.ndarray, np.ndarray]:
    """(points, (N, 3) triangles) of a mesh whose polygons are all triangles."""
    pts = vtk_to_numpy(mesh.GetPoints().GetData()).astype(float)
    conn = vtk_to_numpy(mesh.GetPolys().GetConnectivityArray())
    return pts, conn.reshape(-1, 3)


# --- primitive shapes (the same tessellation and placement PyVista's Cylinder, Sphere and Box give) ----------

def _orient(points: np.ndarray, centre: Sequence[float], direction: Sequence[float]) -> np.ndarray:
    """Turn a shape built along +x to `direction` and move its centre to `centre`."""
    x = np.asarray(direction, dtype=float) / np.linalg.norm(direction)
    helper = [-1.0, 0.0, 0.0] if np.allclose(x, [0, 1, 0]) else [1.0, 0.0, 0.0] if np.allclose(x, [0, -1, 0]) \
        else [0.0, 1.0, 0.0]
    z = np.cross(x, helper)
    z /= np.linalg.norm(z)
    turn = np.column_stack([x, np.cross(z, x), z])
    if not np.array_equal(turn, np.eye(3)):
        points = points @ turn.T
    return (points + np.asarray(centre, dtype=float)).astype(np.float32)


def _clean_triangles(source) -> vtkPolyData:
    """A source's output as triangles with duplicate points merged."""
    from vtkmodules.vtkFiltersCore import vtkCleanPolyData, vtkTriangleFilter

    tri = vtkTriangleFilter()
    tri.SetInputData(source)
    tri.PassVertsOff()
    tri.PassLinesOff()
    clean = vtkCleanPolyData()
    clean.SetInputConnection(tri.GetOutputPort())
    clean.PointMergingOn()
    clean.Update()
    return clean.GetOutput()


def _with_points(poly: vtkPolyData, points: np.ndarray) -> vtkPolyData:
    out = vtkPolyData()
    out.ShallowCopy(poly)
    pts = vtkPoints()
    pts.SetData(numpy_to_vtk(np.ascontiguousarray(points), deep=True))
    out.SetPoints(pts)
    return out


def cylinder(centre: Sequence[float], direction: Sequence[float], radius: float, height: float,
             resolution: int) -> vtkPolyData:
    """A capped cylinder along `direction`, triangulated."""
    from vtkmodules.vtkFiltersSources import vtkCylinderSource

    src = vtkCylinderSource()
    src.SetRadius(radius)
    src.SetHeight(height)
    src.SetResolution(resolution)
    src.CappingOn()
    src.Update()
    out = src.GetOutput()
    p = vtk_to_numpy(out.GetPoints().GetData()).astype(float)
    p = np.column_stack([-p[:, 1], p[:, 0], p[:, 2]])  # the source's axis (+y) turned to +x
    return _clean_triangles(_with_points(out, _orient(p, centre, direction)))


def sphere(centre: Sequence[float], radius: float, theta_resolution: int, phi_resolution: int) -> vtkPolyData:
    """A sphere with its poles on the z axis, triangulated."""
    from vtkmodules.vtkFiltersSources import vtkSphereSource

    src = vtkSphereSource()
    src.SetRadius(radius)
    src.SetThetaResolution(theta_resolution)
    src.SetPhiResolution(phi_resolution)
    src.Update()
    out = src.GetOutput()
    p = vtk_to_numpy(out.GetPoints().GetData()).astype(float)
    p = np.column_stack([p[:, 2], p[:, 1], -p[:, 0]])  # poles turned to +x, then oriented to +z
    return _clean_triangles(_with_points(out, _orient(p, centre, (0, 0, 1))))


def box(bounds: Sequence[float]) -> vtkPolyData:
    """An axis-aligned box (xmin, xmax, ymin, ymax, zmin, zmax), triangulated."""
    from vtkmodules.vtkFiltersSources import vtkTessellatedBoxSource

    src = vtkTessellatedBoxSource()
    src.SetBounds(*bounds)
    src.SetLevel(0)
    src.QuadsOn()
    src.Update()
    return _clean_triangles(src.GetOutput())
