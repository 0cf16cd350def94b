"""Your own documents: discovery, indexing, BM25 and vector search."""
