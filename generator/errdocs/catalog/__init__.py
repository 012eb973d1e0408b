"""The catalogue: where every record lives, its groups, families, related errors, history."""
