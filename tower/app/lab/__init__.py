"""The tower lab (docs/lab.md): build and change a tower by hand, with its legality, verdict and collapse live.

`controller.LabController` holds the lab's whole state (the build, the selection, the edit history, the rule set)
and its edits, with no I/O; `analysis` judges one build (rules and physics, the physics handed in). The page of
`tower serve` (`tower.app.serve.lab`) and the desktop window (`viewer.lab_window`) only map input to the controller
and draw what it describes.
"""
