"""tower-sim: The Climbers (block-tower game), build files, legality, and the shared game API.

Pure rules code: no I/O beyond explicit file helpers, no rendering, no physics imports.
"""

__version__ = "0.1.0"
