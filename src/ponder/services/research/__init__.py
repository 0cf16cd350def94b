"""The research stage: which queries are searched and which findings are kept."""
