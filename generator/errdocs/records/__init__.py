"""Read and validate records: one reader for every input form, the schema, problems."""
