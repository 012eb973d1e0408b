__errdocsLookup("ffilter",{"version":1,"rows":8,"page":50});
