"""Graph nodes: one function per node; each reads state and returns an update."""
