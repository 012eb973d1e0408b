"""The assembled site: merge, ownership, per-site state, lock, journal, bundle."""
