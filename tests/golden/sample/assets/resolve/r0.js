__errdocsLookup("resolve-0",{});
