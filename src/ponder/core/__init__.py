"""The shared types: state, sources, statistics, events, errors, the Report."""
