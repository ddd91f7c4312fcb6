"""`running_server`, at the import path docs/reliability.md gives the owner's own tools.

The embedded server's launcher is `graph/falkordb/launcher.py`; this module only keeps that
documented path working.
"""

from cogmem_graph.graph.falkordb.launcher import RunningServer, running_server

__all__ = ["RunningServer", "running_server"]
