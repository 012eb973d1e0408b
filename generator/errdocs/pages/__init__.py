"""Markdown pages from records: render, templates, excerpt, escape, front matter, write."""
