"""hypothesis-jsonschema 0.23 against the Hypothesis of this venv.

hypothesis-jsonschema draws an object's keys with Hypothesis's internal `many(...)` helper, calling `.more()`;
Hypothesis 6.16x turned that helper into a context manager (`with many(...) as e: for _ in e:`) and dropped
`.more()`. This gives hypothesis-jsonschema the old protocol on top of the new implementation, element spans and
the stop decision drawn exactly as the new helper draws them. Without it every object schema fails with
"'many' object has no attribute 'more'".
"""

from __future__ import annotations

import types

from hypothesis.internal.conjecture import utils as cu


class _Many(cu.many):
    """`many` with the pre-context-manager `more()` loop."""

    def more(self) -> bool:
        if self._depth is None:
            self._depth = self.data.depth
        self._finish_element()
        if not self._decide():
            self._closed = True
            return False
        self.count += 1
        self._in_element = True
        self._rejected = False
        return True


def patch_hypothesis_jsonschema() -> None:
    """Point hypothesis-jsonschema at the old-protocol helper when this Hypothesis lacks `many.more`."""
    from hypothesis_jsonschema import _from_schema

    if hasattr(cu.many, "more") or getattr(_from_schema.cu, "_tower_compat", False):
        return
    shim = types.ModuleType(cu.__name__)
    shim.__dict__.update(cu.__dict__)
    shim.many = _Many
    shim._tower_compat = True
    _from_schema.cu = shim
