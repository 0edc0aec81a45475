"""Pictures as files: PNG bytes encoded by VTK, written atomically."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def png_bytes(img: np.ndarray) -> bytes:
    """An (H, W, 3) uint8 image as PNG bytes, encoded by VTK (already loaded: no imaging library to import)."""
    from vtkmodules.util.numpy_support import numpy_to_vtk, vtk_to_numpy
    from vtkmodules.vtkCommonDataModel import vtkImageData
    from vtkmodules.vtkIOImage import vtkPNGWriter

    h, w, channels = img.shape
    data = vtkImageData()
    data.SetDimensions(w, h, 1)
    scalars = numpy_to_vtk(np.ascontiguousarray(img[::-1]).reshape(-1, channels), deep=True)
    data.GetPointData().SetScalars(scalars)
    writer = vtkPNGWriter()
    writer.SetInputData(data)
    writer.WriteToMemoryOn()
    writer.Write()
    return vtk_to_numpy(writer.GetResult()).tobytes()


def save_png(img: np.ndarray, path: str | Path) -> None:
    """PNG via a temp file in the same folder and a rename (never a partial picture)."""
    from tower.games.fileio import atomic_write_bytes

    atomic_write_bytes(path, png_bytes(img))
