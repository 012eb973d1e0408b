__errdocsLookup("manifest",{"version":1,"shards":2,"records":40,"maxWords":16});
