"""errdocs: turn a dataset of error records into an MkDocs (Material) site."""

__version__ = "0.1.0"
