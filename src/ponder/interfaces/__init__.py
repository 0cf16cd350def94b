"""The ways in: the ``ponder`` command line (cli), its progress display and HTML report."""
