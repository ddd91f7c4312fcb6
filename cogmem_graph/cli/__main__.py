"""`python -m cogmem_graph.cli`: the same command as the `cogmem` script."""

from cogmem_graph.cli import main

main()
