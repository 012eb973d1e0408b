/*
 * errdocs lookup: find the record of a pasted error message, in the browser.
 *
 * The same rules as the Python matcher (generator/errdocs/lookup/: extract.py, patterns.py,
 * match.py); the test suite runs both on the same inputs and compares the results. Works as a
 * classic <script> (window.errdocsLookup) and as a Node module (require), with no dependencies.
 *
 * In the browser the matching runs in a Web Worker made from this very function (see
 * offThread below): a record's pattern, untrusted, can take a backtracking engine seconds, and
 * the page must answer all the same.
 */
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = factory();
  else if (!root.errdocsLookup) root.errdocsLookup = factory();  // both boxes: one worker
})(typeof self !== "undefined" ? self : this, function errdocsLookupFactory() {
  "use strict";

  var MAX_INPUT = 20000;
  var MAX_LINE = 1000;
  var MAX_CANDIDATES = 12;
  var MAX_WORDS = 16;
  var MIN_SIMILARITY = 0.35;
  var BLANKS = " \t\n\r\f\v";
  var TIER = { "pattern": 4, "template": 3, "pattern-part": 2, "template-part": 1, "similar": 0 };

  /* ---- tokens.py ---------------------------------------------------------------------- */

  function tokens(text) {
    var found = text.match(/[A-Za-z0-9_]+/g) || [];
    return found.map(function (t) { return t.toLowerCase(); });
  }

  function isTokenChar(c) { return /^[A-Za-z0-9_]$/.test(c); }

  function fnv1a(text) {
    var value = 0x811c9dc5;
    for (var i = 0; i < text.length; i++) {
      value ^= text.charCodeAt(i);
      value = Math.imul(value, 0x01000193) >>> 0;
    }
    return value >>> 0;
  }

  /* Python slices and lengths count code points, not UTF-16 units. */
  function chars(text) { return Array.from(text); }
  function length(text) { return chars(text).length; }

  function strip(text) {
    var start = 0, end = text.length;
    while (start < end && BLANKS.indexOf(text[start]) >= 0) start++;
    while (end > start && BLANKS.indexOf(text[end - 1]) >= 0) end--;
    return text.slice(start, end);
  }
  function rstrip(text) {
    var end = text.length;
    while (end > 0 && BLANKS.indexOf(text[end - 1]) >= 0) end--;
    return text.slice(0, end);
  }

  /* ---- extract.py --------------------------------------------------------------------- */

  var EXPLICIT = [
    /^[ \t]*what\(\):[ \t]+(?<m>[^\n]+)$/,
    /panicked at '(?<m>[^\n]+)', [^ \t]+:\d+(?::\d+)?$/,
    /^(?:panic|fatal error): (?<m>[^\n]+?)(?: \[recovered\])?$/
  ];
  var RUST_PANIC = /panicked at [^ \t]+:\d+(?::\d+)?:$/;
  var CLASS_PREFIX =
    /^(?:[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)(?:\[[\w-]+\])?:[ \t]+(?<m>[^\n]+)$/;
  var ERRORISH = /(?:Error|Exception|Exit|Interrupt|Warning|Panic|Fault|Failure|error|panic|fatal)(?:\[[\w-]+\])?: /;
  var LINE_PREFIXES = [
    /^E[ \t]{2,}/,
    /^\d{4}[-/]\d\d[-/]\d\d[T ][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?[ \t]+/,
    /^\[?(?:ERROR|FATAL|CRITICAL|WARN|WARNING|error|fatal)\]?(?::[^ \t]*:)?:?[ \t]+/
  ];
  var FRAME = new RegExp(
    "^(?:Traceback \\(most recent call last\\):|During handling of the above exception" +
    "|The above exception was the direct cause|goroutine \\d+ \\[|stack backtrace:" +
    "|note: run with `RUST_BACKTRACE|exit status \\d+$|[ \\t]*\\^+[ \\t]*$)");

  function candidates(text) {
    return found(text).map(function (m) { return chars(m).slice(0, MAX_LINE).join(""); });
  }

  /* The candidates, uncut. */
  function found(text) {
    var lines = splitLines(text);
    var explicit = [], plain = [];
    if (lines.length === 1) {
      explicit = explicitAt(lines, 0);
      plain = [lines[0]];
    } else {
      for (var i = 0; i < lines.length; i++) explicit = explicit.concat(explicitAt(lines, i));
      for (var j = lines.length - 1; j >= 0; j--) {
        var line = lines[j];
        if (line && BLANKS.indexOf(line[0]) < 0 && !FRAME.test(line)) plain.push(line);
      }
    }
    var found = [];
    explicit.reverse().concat(plain).forEach(function (message) {
      variants(message).forEach(function (v) {
        if (v && found.indexOf(v) < 0) found.push(v);
      });
    });
    return found.slice(0, MAX_CANDIDATES);
  }

  /* extract.py: cut_notes. */
  function cutNotes(text) {
    var notes = [], given = codePoints(text), longest = 0;
    if (given > MAX_INPUT) {
      notes.push("Only the last " + thousands(MAX_INPUT) + " characters of the " +
                 thousands(given) + " given were read.");
    }
    found(text).forEach(function (m) { longest = Math.max(longest, codePoints(m)); });
    if (longest > MAX_LINE) {
      notes.push("Only the first " + thousands(MAX_LINE) + " characters of a line of " +
                 thousands(longest) + " were matched.");
    }
    return notes;
  }

  function codePoints(text) {
    var count = text.length;
    for (var i = 0; i < text.length; i++) {
      var unit = text.charCodeAt(i);
      if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < text.length) {
        var next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next < 0xe000) { count--; i++; }
      }
    }
    return count;
  }

  function thousands(n) {
    var digits = String(n), out = "";
    for (var i = 0; i < digits.length; i++) {
      if (i && (digits.length - i) % 3 === 0) out += ",";
      out += digits[i];
    }
    return out;
  }

  /* The last MAX_INPUT code points (a 5 MB paste is cut before anything else looks at it:
     the last 2 * MAX_INPUT code units hold them). */
  function lastPart(text) {
    return chars(text.slice(-2 * MAX_INPUT)).slice(-MAX_INPUT).join("");
  }

  function splitLines(text) {
    text = lastPart(text).replace(/\r\n/g, "\n").replace(/\r/g, "\n");
    var lines = strip(text).split("\n").map(function (l) { return stripPrefixes(rstrip(l)); });
    return lines.length > 1 ? lines : [strip(lines[0])];
  }

  function stripPrefixes(line) {
    LINE_PREFIXES.forEach(function (p) { line = line.replace(p, ""); });
    return line;
  }

  function explicitAt(lines, index) {
    var line = lines[index];
    for (var i = 0; i < EXPLICIT.length; i++) {
      var match = EXPLICIT[i].exec(line);
      if (match) return [strip(match.groups.m)];
    }
    if (RUST_PANIC.test(line) && index + 1 < lines.length) return [strip(lines[index + 1])];
    if (CLASS_PREFIX.test(line) && errorish(line)) return [line];
    return [];
  }

  function variants(message) {
    message = strip(message);
    var stripped = CLASS_PREFIX.exec(message);
    if (!stripped) return [message];
    var inner = strip(stripped.groups.m);
    return errorish(message) ? [inner, message] : [message, inner];
  }

  function errorish(line) { return ERRORISH.test(line.split(" ")[0] + " "); }

  /* ---- patterns.py: templates --------------------------------------------------------- */

  var PLACEHOLDER = /\{\{|\}\}|\{[^{}]*\}/g;
  var TEMPLATE_SPECIAL = "\\^$.|?*+()[]{}/";
  var WILD = {}, BOUNDARY = {};
  /* A match inside a message starts and ends a word (patterns.py: guarded). */
  var GUARD_BEFORE = "(?<![A-Za-z0-9_])", GUARD_AFTER = "(?![A-Za-z0-9_])";

  function escapeLiteral(text) {
    return text.split(/[ \t\n\r\f\v]+/).map(function (part) {
      return chars(part).map(function (c) {
        return TEMPLATE_SPECIAL.indexOf(c) >= 0 ? "\\" + c : c;
      }).join("");
    }).join("\\s+");
  }

  function templateRegex(template) {
    var out = [], pos = 0, match;
    PLACEHOLDER.lastIndex = 0;
    while ((match = PLACEHOLDER.exec(template)) !== null) {
      out.push(escapeLiteral(template.slice(pos, match.index)));
      var token = match[0];
      out.push(token === "{{" || token === "}}" ? "\\" + token[0] : "([\\s\\S]+?)");
      pos = match.index + token.length;
    }
    out.push(escapeLiteral(template.slice(pos)));
    return out.join("");
  }

  function templatePieces(template) {
    var pieces = [], pos = 0, match;
    PLACEHOLDER.lastIndex = 0;
    while ((match = PLACEHOLDER.exec(template)) !== null) {
      pieces = pieces.concat(chars(template.slice(pos, match.index)));
      var token = match[0];
      pieces.push(token === "{{" || token === "}}" ? token[0] : WILD);
      pos = match.index + token.length;
    }
    return pieces.concat(chars(template.slice(pos)));
  }

  function requirements(pieces) {
    var words = {}, literalChars = 0, run = [], boundedBefore = true;
    pieces.concat([BOUNDARY]).forEach(function (piece) {
      var isText = typeof piece === "string";
      if (isText) {
        literalChars++;
        if (isTokenChar(piece)) { run.push(piece); return; }
      }
      var closes = piece === BOUNDARY || isText;
      if (run.length && boundedBefore && closes) words[run.join("").toLowerCase()] = true;
      run = [];
      boundedBefore = closes;
    });
    return { words: words, literalChars: literalChars };
  }

  /* ---- match.py ----------------------------------------------------------------------- */

  function lookupWords(messages) {
    var seen = [];
    messages.forEach(function (m) {
      tokens(m).forEach(function (t) { if (seen.indexOf(t) < 0) seen.push(t); });
    });
    return seen.slice(0, MAX_WORDS);
  }

  function wordSet(list) {
    var set = {};
    list.forEach(function (w) { set[w] = true; });
    return set;
  }

  function weight(set) {
    var total = 0;
    for (var w in set) total += w.length;
    return total;
  }

  function similarity(messageWords, recordWords) {
    var shared = {};
    for (var w in messageWords) if (recordWords[w]) shared[w] = true;
    var both = weight(shared);
    if (!both) return 0;
    var precision = both / weight(messageWords);
    var recall = both / weight(recordWords);
    return 5 * precision * recall / (4 * precision + recall);
  }

  /*
   * An entry of the data: [pages, message, js pattern, js flags, pattern chars, keys, numbers],
   * pages being "owner/repo/slug" or ["owner/repo/slug", "Owner/Repo"], numbers their records'
   * places in the index (sitedata.py). One prepared matcher serves all its pages.
   */
  function prepare(entry) {
    var template = requirements(templatePieces(entry[1]));
    var prepared = {
      message: entry[1], keys: entry[5], patternChars: entry[4],
      templateChars: template.literalChars, words: template.words,
      pattern: null, patternWhole: null, template: null, templateWhole: null
    };
    if (entry[2] !== null) {
      try {
        prepared.pattern = new RegExp(GUARD_BEFORE + "(?:" + entry[2] + ")" + GUARD_AFTER,
                                      entry[3]);
        prepared.patternWhole = new RegExp("^(?:" + entry[2] + ")$", entry[3]);
      } catch (e) {
        prepared.pattern = prepared.patternWhole = null;  // matched by its template instead
      }
    }
    if (Object.keys(template.words).length) {
      var source = templateRegex(entry[1]);
      prepared.template = new RegExp(GUARD_BEFORE + "(?:" + source + ")" + GUARD_AFTER, "u");
      prepared.templateWhole = new RegExp("^(?:" + source + ")$", "u");
    }
    return prepared;
  }

  function pagesOf(entry) {
    return entry[0].map(function (page, n) {
      var path = typeof page === "string" ? page : page[0];
      var repo = typeof page === "string" ? page.split("/").slice(0, 2).join("/") : page[1];
      return { page: path, repo: repo, number: entry[6] ? entry[6][n] : null };
    });
  }

  function onMessage(record, message, size) {
    var patternScore = Math.min(1, record.patternChars / size);
    var templateScore = Math.min(1, record.templateChars / size);
    if (record.patternWhole && record.patternWhole.test(message)) return ["pattern", patternScore];
    if (record.templateWhole && record.templateWhole.test(message)) return ["template", templateScore];
    if (record.pattern && record.pattern.test(message)) return ["pattern-part", patternScore];
    if (record.template && record.template.test(message)) return ["template-part", templateScore];
    return null;
  }

  function rankKey(match) {
    var exact = match.how !== "similar";
    return [exact ? 0 : 1, exact ? match.candidate : 0, -TIER[match.how], -match.score,
            "/errors/" + match.record.page + "/"];
  }

  function compare(a, b) {
    var x = rankKey(a), y = rankKey(b);
    for (var i = 0; i < x.length; i++) {
      if (x[i] < y[i]) return -1;
      if (x[i] > y[i]) return 1;
    }
    return 0;
  }

  function keyOf(entry) {
    var page = entry[0][0];
    return typeof page === "string" ? page : page[0];
  }

  /*
   * Rank records for pasted text. `entries` are the data records loaded for
   * `plan(text).words` (duplicates allowed); returns the best `limit` matches. `options`
   * (used off the main thread): `before(key, what)` is called before a record's regexes run
   * ("pattern", or "template" when its pattern is skipped); `skip[key]` is "pattern" to match
   * that record by its template only, "all" to run none of its regexes; `none` skips every
   * record's regexes.
   */
  function rank(entries, text, limit, options) {
    options = options || {};
    var skip = options.skip || {};
    var messages = candidates(text);
    if (!messages.length) return [];
    var allowed = wordSet(lookupWords(messages));
    var wordSets = messages.map(function (m) { return wordSet(tokens(m)); });
    var sizes = messages.map(function (m) { return Math.max(length(m), 1); });
    var seen = {}, found = [];
    entries.forEach(function (entry) {
      if (!entry[5].some(function (k) { return allowed[k]; })) return;
      var pages = pagesOf(entry).filter(function (p) { return !seen[p.page]; });
      if (!pages.length) return;  // an entry can be in two shards
      var matcher = prepare(entry), best = null, key = keyOf(entry);
      var level = options.none ? "all" : skip[key];
      if (level) matcher.pattern = matcher.patternWhole = null;
      if (level === "all") matcher.template = matcher.templateWhole = null;
      var runs = (matcher.patternWhole || matcher.templateWhole) &&
        messages.some(function (m, n) { return matcher.keys.some(function (k) { return wordSets[n][k]; }); });
      if (runs && options.before) options.before(key, matcher.patternWhole ? "pattern" : "template");
      messages.forEach(function (message, n) {
        if (!matcher.keys.some(function (k) { return wordSets[n][k]; })) return;
        var hit = onMessage(matcher, message, sizes[n]);
        if (!hit) return;
        var match = { record: { page: "" }, how: hit[0], score: hit[1], candidate: n,
                      message: message };
        if (!best || compare(match, best) < 0) best = match;
      });
      if (!best) {
        var score = similarity(wordSets[0], matcher.words);
        if (score >= MIN_SIMILARITY)
          best = { how: "similar", score: score, candidate: 0, message: messages[0] };
      }
      if (!best) return;
      pages.forEach(function (p) {
        seen[p.page] = true;
        found.push({ record: { page: p.page, repo: p.repo, message: matcher.message,
                               number: p.number },
                     how: best.how, score: best.score, candidate: best.candidate,
                     message: best.message });
      });
    });
    return found.sort(compare).slice(0, limit || 10);
  }

  /* Which data shards a lookup needs: those of the words it considers. */
  function plan(text, shards) {
    var words = lookupWords(candidates(text));
    var wanted = [];
    words.forEach(function (w) {
      var shard = fnv1a(w) % shards;
      if (wanted.indexOf(shard) < 0) wanted.push(shard);
    });
    return { words: words, shards: wanted.sort(function (a, b) { return a - b; }) };
  }

  /* ---- off the main thread ------------------------------------------------------------ */

  /*
   * A lookup's work: `request.kind` "plan" (the shards a text needs, and what of it is left
   * out) or "rank" (of the entries of the shards `request.use` names, in `shards`).
   */
  function answer(request, shards, before) {
    if (request.kind === "plan") {
      return { plan: plan(request.text, request.shards), notes: cutNotes(request.text) };
    }
    var entries = [];
    request.use.forEach(function (name) { entries = entries.concat(shards[name] || []); });
    return { matches: rank(entries, request.text, request.limit,
                           { skip: request.skip, none: request.none, before: before }) };
  }

  /* The worker's side: keeps the shards it is sent, answers requests, says where it is. */
  function serve(scope) {
    var shards = {};
    scope.onmessage = function (event) {
      var message = event.data;
      for (var name in message.data) shards[name] = message.data[name];
      var result = answer(message.request, shards, function (key, what) {
        scope.postMessage({ id: message.id, at: key, what: what });
      });
      scope.postMessage({ id: message.id, result: result });
    };
    scope.postMessage({ ready: true });
  }

  var BUDGET = 300;
  /* Milliseconds the worker may stay on one record (or, before the first, on reading the
     text) before it is stopped: the record is then matched without the regex that was running
     (its pattern, then its template), in a new worker, which redoes the rest. */
  var START = 10000;  // milliseconds a new worker may take to start
  var MAX_LATE = 4;   // records given up on in one lookup before none of its regexes run

  /*
   * The page's side. A worker cannot be started from a file (a site opened from disk), so it
   * is started from this function's own text, as a Blob URL; where that fails (a policy
   * forbids it, an old browser), the lookup runs here, where the build's check of patterns
   * (backtrack.py) still keeps out the worst.
   */
  function offThread() {
    var worker = null, ready = null, sent = {}, slow = {}, next = 0, local = false;
    var queue = Promise.resolve();

    function start() {
      if (worker || local) return;
      try {
        var url = URL.createObjectURL(new Blob(["(" + errdocsLookupFactory + ")().serve(self);\n"],
                                               { type: "text/javascript" }));
        // A blob: URL, not a file: the offline bundle opens from file://, where a page may not
        // start a worker from a script file.
        worker = new Worker(url);
        worker.errdocsUrl = url;
      } catch (e) {
        local = true;
        return;
      }
      sent = {};
      var starting = worker;
      ready = new Promise(function (resolve) {
        var timer = setTimeout(function () { fail(starting); resolve(); }, START);
        starting.onmessage = function () { clearTimeout(timer); resolve(); };
        starting.onerror = function (event) {
          if (event.preventDefault) event.preventDefault();
          clearTimeout(timer);
          fail(starting);
          resolve();
        };
      });
    }

    function stop() {
      if (!worker) return;
      worker.terminate();
      URL.revokeObjectURL(worker.errdocsUrl);
      worker = null;
    }

    function fail(which) {  // the worker did not start: work here
      if (worker === which) stop();
      local = true;
    }

    /* One request under the budget: {result}, or {late: {key, what}} when it ran over. */
    function call(request, shards) {
      start();
      if (local) return Promise.resolve({ result: answer(request, shards) });
      return ready.then(function () {
        if (local || !worker) return { result: answer(request, shards) };
        var current = worker, id = ++next, at = { key: null }, timer = null;
        return new Promise(function (resolve) {
          function arm() {
            clearTimeout(timer);
            timer = setTimeout(function () { stop(); resolve({ late: at }); }, BUDGET);
          }
          current.onmessage = function (event) {
            var data = event.data;
            if (data.id !== id) return;
            if (data.at !== undefined) {
              at = { key: data.at, what: data.what };
              arm();
              return;
            }
            clearTimeout(timer);
            resolve({ result: data.result });
          };
          var data = {};
          for (var name in shards) {
            if (!sent[name]) { data[name] = shards[name]; sent[name] = true; }
          }
          current.postMessage({ id: id, request: request, data: data });
          arm();
        });
      });
    }

    function lined(work) {  // one request at a time (both boxes may be on a page)
      var run = queue.then(work);
      queue = run.catch(function () {});
      return run;
    }

    function tooLong() { return new Error("the lookup took too long"); }

    return {
      /* {words, shards, notes} for `text` and a data set of `shards` shards. */
      plan: function (text, shards) {
        return lined(function () {
          return call({ kind: "plan", text: text, shards: shards }, {}).then(function (reply) {
            if (!reply.result) throw tooLong();
            return { words: reply.result.plan.words, shards: reply.result.plan.shards,
                     notes: reply.result.notes };
          });
        });
      },
      /* The best `limit` matches for `text` among `shards` ({name: entries}). */
      rank: function (shards, text, limit) {
        function attempt(late) {
          var skip = {};
          for (var key in slow) skip[key] = slow[key];
          var request = { kind: "rank", text: text, limit: limit, use: Object.keys(shards),
                          skip: skip, none: late >= MAX_LATE };
          return call(request, shards).then(function (reply) {
            if (reply.result) return reply.result.matches;
            if (reply.late.key === null) throw tooLong();
            slow[reply.late.key] = reply.late.what === "pattern" ? "pattern" : "all";
            return attempt(late + 1);
          });
        }
        return lined(function () { return attempt(0); });
      }
    };
  }

  var client = null;

  /*
   * A paste longer than the lookup reads is cut as it arrives (a text field holding megabytes
   * makes the browser itself slow). `pastedNote(field)` says so while the field holds what
   * was kept.
   */
  function keepPastesShort(field) {
    field.addEventListener("paste", function (event) {
      var data = event.clipboardData && event.clipboardData.getData("text");
      if (!data || data.length <= 2 * MAX_INPUT) return;
      var kept = lastPart(data), given = codePoints(data);
      if (given <= MAX_INPUT) return;
      event.preventDefault();
      field.value = kept;
      field.errdocsKept = kept;
      field.errdocsNote = "Only the last " + thousands(MAX_INPUT) + " characters of the " +
        thousands(given) + " pasted were kept.";
      field.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }

  function pastedNote(field) {
    return field.errdocsKept !== undefined && field.value === field.errdocsKept
      ? [field.errdocsNote] : [];
  }

  return {
    candidates: candidates, cutNotes: cutNotes, tokens: tokens, fnv1a: fnv1a,
    templateRegex: templateRegex,
    templateRequirements: function (t) { return requirements(templatePieces(t)); },
    similarity: similarity, lookupWords: lookupWords, plan: plan, rank: rank,
    answer: answer, serve: serve, lastPart: lastPart, keepPastesShort: keepPastesShort,
    pastedNote: pastedNote,
    /* The page's one client of the worker (see offThread). */
    offThread: function () { return client || (client = offThread()); },
    BUDGET: BUDGET, DATA_VERSION: 2
  };
});
