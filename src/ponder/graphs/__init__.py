"""Graphs: the research loop, the deep pipeline, and the graph that joins them."""
