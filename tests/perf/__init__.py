"""Performance benchmarks (``make bench``); not collected by pytest."""
