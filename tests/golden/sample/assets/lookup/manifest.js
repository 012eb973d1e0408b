__errdocsLookup("manifest",{"version":2,"shards":4,"records":40,"maxWords":16});
