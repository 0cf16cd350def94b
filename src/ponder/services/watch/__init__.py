"""Watched questions: what a run read, what changed since the run before, and the feed."""
