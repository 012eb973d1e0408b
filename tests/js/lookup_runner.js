// Runs the site's lookup.js in Node for the Python tests (tests/test_lookup_js.py).
// Usage: node lookup_runner.js REQUEST.json  ->  prints a JSON answer on stdout.
// Requests: {"mode": "rank", "lookupJs", "dataDir", "texts", "limit"}
//           {"mode": "regex", "items": [{"source", "flags", "messages"}]}
//           {"mode": "helpers", "lookupJs", "templates", "texts"}
//           {"mode": "hash", "lookupJs", "texts"}: fnv1a of each text (the 404 page's keys)
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const request = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));

// Data files are scripts calling __errdocsLookup(name, data), as in the browser.
function loadData(dataDir, file) {
  let registered;
  const context = { __errdocsLookup: (name, data) => { registered = { name, data }; } };
  vm.runInNewContext(fs.readFileSync(path.join(dataDir, file), "utf8"), context);
  return registered;
}

function rank() {
  const lookup = require(request.lookupJs);
  const manifest = loadData(request.dataDir, "manifest.js").data;
  const options = request.options || {};
  return request.texts.map((text) => {
    const plan = lookup.plan(text, manifest.shards);
    const entries = [];
    for (const shard of plan.shards) {
      const loaded = loadData(request.dataDir, "s" + shard.toString(16) + ".js");
      if (loaded.name !== shard) throw new Error("shard " + shard + " registered as " + loaded.name);
      entries.push(...loaded.data);
    }
    const before = [];
    const started = process.hrtime.bigint();
    const ranked = lookup.rank(entries, text, request.limit,
                               { skip: options.skip, before: (key, what) => before.push([key, what]) });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const matches = ranked.map((m) => ({
      url: "/errors/" + m.record.page + "/", how: m.how, score: m.score,
      candidate: m.candidate, message: m.message,
    }));
    return { candidates: lookup.candidates(text), shards: plan.shards, matches, before, seconds };
  });
}

function regex() {
  return request.items.map((item) => {
    let search, whole;
    try {
      search = new RegExp(item.source, item.flags);
      whole = new RegExp("^(?:" + item.source + ")$", item.flags);
    } catch (error) {
      return { error: String(error) };
    }
    return {
      results: item.messages.map((message) => {
        const found = search.exec(message);
        return {
          full: whole.test(message),
          search: found && {
            start: Array.from(message.slice(0, found.index)).length,
            text: found[0],
            groups: found.slice(1).map((g) => (g === undefined ? null : g)),
            named: Object.fromEntries(Object.entries(found.groups || {})
              .map(([name, value]) => [name, value === undefined ? null : value])),
          },
        };
      }),
    };
  });
}

function helpers() {
  const lookup = require(request.lookupJs);
  return {
    dataVersion: lookup.DATA_VERSION,
    templates: request.templates.map((t) => {
      const req = lookup.templateRequirements(t);
      return { regex: lookup.templateRegex(t), words: Object.keys(req.words).sort(),
               literalChars: req.literalChars };
    }),
    texts: request.texts.map((t) => ({
      tokens: lookup.tokens(t),
      fnv1a: lookup.tokens(t).map(lookup.fnv1a),
      candidates: lookup.candidates(t),
      notes: lookup.cutNotes(t),
    })),
  };
}

const modes = { rank, regex, helpers };
modes.hash = () => request.texts.map(require(request.lookupJs).fnv1a);

process.stdout.write(JSON.stringify(modes[request.mode]()));
