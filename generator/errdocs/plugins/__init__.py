"""The MkDocs plugins errdocs registers (unit, compact, record, lastmod)."""
