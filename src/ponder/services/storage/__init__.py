"""What ponder keeps on disk: run history, checkpoints, the search cache."""
