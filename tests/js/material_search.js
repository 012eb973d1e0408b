// Runs Material for MkDocs' own search worker (lunr) in Node on a built site's search index,
// the way the site's search box does: node material_search.js SITE_DIR QUERY...
// Prints, for each query, the page locations of the results, best first.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const [site, ...queries] = process.argv.slice(2);
const workers = path.join(site, "assets", "javascripts", "workers");
const worker = fs.readdirSync(workers).find((f) => /^search\..*\.min\.js$/.test(f));
let handler;
const answers = [];
const context = {
  console, importScripts() {}, postMessage: (m) => answers.push(m),
  addEventListener: (type, listener) => { handler = listener; },
};
context.self = context;
vm.createContext(context);
vm.runInContext(fs.readFileSync(path.join(workers, worker), "utf8"), context);

// Message types of Material's worker: 0 setup, 2 query (see its search/worker/message).
const index = JSON.parse(fs.readFileSync(path.join(site, "search", "search_index.json"), "utf8"));
(async () => {
  await handler({ data: { type: 0, data: { ...index, options: { suggest: false } } } });
  const results = [];
  for (const query of queries) {
    await handler({ data: { type: 2, data: query } });
    results.push(answers.at(-1).data.items.map((group) => group[0].location));
  }
  process.stdout.write(JSON.stringify(results));
})();
