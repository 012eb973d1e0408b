"""The build's units: the plan (one rebuild decision), unit builds, workers, MkDocs runs."""
