__errdocsLookup("resolve",{"version":1,"shards":1});
