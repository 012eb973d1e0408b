"""The site's search data: paste box, search box and full-text index."""
