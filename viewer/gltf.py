"""glTF export helpers: meshes as glTF can carry them."""

from __future__ import annotations

import numpy as np

from viewer import mesh as vm
from viewer.mesh import Mesh


def gltf_ready(mesh: Mesh) -> Mesh:
    """Triangles with their own corners and point colours: glTF has no per-face colours, only per-vertex."""
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkFiltersCore import vtkTriangleFilter

    tri = vtkTriangleFilter()
    tri.SetInputData(mesh)
    tri.Update()
    out = tri.GetOutput()
    pts, faces = vm.triangles(out)
    flat = vm.faces_mesh(pts[faces].reshape(-1, 3), np.arange(3 * len(faces)).reshape(-1, 3))
    rgb = vtk_to_numpy(out.GetCellData().GetArray("rgb"))
    flat.set_point_array("rgb", np.repeat(rgb, 3, axis=0))
    return flat
