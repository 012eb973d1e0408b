/*
 * errdocs: the hosted site's search, Material's search dialog driven by errdocs' own data.
 *
 * Material's lunr index costs about 4 KB a page (over 1 GB at 310,000 records). Instead a
 * query loads only the data files of its words (generator/errdocs/lookup/searchdata.py):
 *   1. the search data's word shards: records by the words of their message, class, tags,
 *      category and repository, most words (then rarest words) first;
 *   2. the paste box's lookup data of the query's rarest words (known from 1; a common word's
 *      shard can be big), ranked by the paste box's own engine (lookup.js: message pattern,
 *      template, similar wording), which finds a record from a pasted message;
 *   3. the record chunks of the ten results shown (message, repository, what it means).
 * A site built with `errdocs build --full-text` also has a Pagefind index of the records' whole
 * text: a button after the results loads it, only when clicked.
 *
 * Everything shown is put on the page as text (Pagefind's excerpts: text and <mark> only),
 * never as markup: record text is untrusted.
 */
(() => {
  "use strict";

  const root = document.querySelector("[data-errdocs-search]");
  const toggle = document.getElementById("__search");
  if (!root || !toggle) return;

  const form = root.querySelector("[data-errdocs-search-form]");
  const input = root.querySelector("[data-errdocs-search-query]");
  const meta = root.querySelector("[data-errdocs-search-meta]");
  const list = root.querySelector("[data-errdocs-search-list]");
  const config = JSON.parse(document.getElementById("__config").textContent);
  const translations = config.translations || {};
  const engine = window.errdocsLookup;  // lookup.js
  const data = window.errdocsData;       // loader.js
  const MAX_RESULTS = 10;
  const SEARCH_VERSION = 1;
  const PAGE = /^[a-z0-9._-]+(?:\/[a-z0-9._-]+)*$/;  // what the generator's paths look like

  // Material's base URL is relative to this page ("..", "../.."); "/" on the 404 page.
  const base = new URL(`${config.base.replace(/\/$/, "")}/`, location.href);
  const searchBase = root.getAttribute("data-search-base");
  const lookupBase = root.getAttribute("data-lookup-base");
  const directoryUrls = root.getAttribute("data-directory-urls") !== "false";

  // Opened from disk (the offline bundle), a folder's address shows its listing, not its page:
  // name the page's index.html (kept: the fragment).
  function onDisk(href) {
    if (location.protocol !== "file:" || href === "#") return href;
    const url = new URL(href);
    if (url.pathname.endsWith("/")) url.pathname += "index.html";
    return url.href;
  }

  function say(text) {
    meta.textContent = text;
  }

  function count(n) {
    const key = n === 0 ? "search.result.none" : n === 1 ? "search.result.one" : "search.result.other";
    return (translations[key] || "# matching documents").replace("#", String(n));
  }

  /* ---- errdocs' data -------------------------------------------------------------------- */

  const manifests = () => Promise.all([
    data.load(`${searchBase}manifest.js`, "search"),
    data.load(`${lookupBase}manifest.js`, "manifest"),
  ]).then(([search, lookup]) => {
    if (search.version !== SEARCH_VERSION || lookup.version !== engine.DATA_VERSION) {
      throw new Error("unknown data version");
    }
    return { search, lookup };
  });

  // The paste box's ranking: records whose pattern or template matches, or worded alike.
  // Only the shards of the rarest words whose word list is complete are loaded: a record is
  // filed under its rarest words, and a common word's shard can be big. The matching runs in
  // lookup.js' worker, under a time budget (a record's pattern is untrusted).
  async function byMessage(manifests, query, postings, plan) {
    const { search, lookup } = manifests;
    const count = (w) => (postings[w] ? postings[w][0] : Infinity);
    const rare = plan.words
      .filter((w) => count(w) <= search.maxPostings)
      .sort((a, b) => count(a) - count(b))
      .slice(0, search.lookupWords);
    const shards = [...new Set(rare.map((w) => engine.fnv1a(w) % lookup.shards))];
    const loaded = await Promise.all(shards.map((n) =>
      data.load(`${lookupBase}s${n.toString(16)}.js`, String(n))));
    const byName = Object.fromEntries(shards.map((n, i) => [String(n), loaded[i]]));
    return engine.offThread().rank(byName, query, 5 * MAX_RESULTS);
  }

  function queryWords(manifest, query) {
    const stop = new Set(manifest.stop);
    const words = engine.tokens(query).filter((w) => !stop.has(w));
    return [...new Set(words)].slice(0, manifest.maxWords);
  }

  // Each query word's list: [records holding it, gap, gap...] (searchdata.py).
  async function postingsOf(manifest, words) {
    const shards = [...new Set(words.map((w) => engine.fnv1a(w) % manifest.shards))];
    const loaded = await Promise.all(shards.map((n) =>
      data.load(`${searchBase}w${n.toString(16)}.js`, `w${n}`)));
    const postings = Object.create(null);
    for (const shard of loaded) {
      for (const word of words) {
        if (Object.prototype.hasOwnProperty.call(shard, word)) postings[word] = shard[word];
      }
    }
    return postings;
  }

  // Records holding the query's words: at least half of them, most words first, then the
  // rarest words (a word's weight falls with the records holding it).
  function byWords(manifest, words, postings) {
    const hits = new Map();
    for (const word of words) {
      const posting = postings[word];
      if (!posting) continue;
      const weight = Math.log(1 + manifest.records / Math.max(posting[0], 1));
      let number = 0;
      for (let i = 1; i < posting.length; i++) {
        number += posting[i];
        const hit = hits.get(number) || { number, words: 0, weight: 0 };
        hit.words += 1;
        hit.weight += weight;
        hits.set(number, hit);
      }
    }
    const enough = Math.ceil(words.length / 2);
    return [...hits.values()]
      .filter((hit) => hit.words >= enough)
      .sort((a, b) => b.words - a.words || b.weight - a.weight || a.number - b.number)
      .map((hit) => ({ number: hit.number, all: hit.words === words.length }));
  }

  // Hand-written pages holding every word (the manifest lists their words).
  function pagesOf(manifest, words) {
    if (!words.length) return [];
    return manifest.pages.filter(([, , text]) => {
      const have = new Set(text.split(" "));
      return words.every((w) => have.has(w));
    }).map(([url, title]) => ({ url, title }));
  }

  // Lookup matches as lookup.js ranks them; among equals (records sharing a pattern that
  // matches), those holding more of the query's words first.
  function tieBroken(matches, hits) {
    const place = new Map(hits.map((h, i) => [h.number, i]));
    const at = (m) => (place.has(m.record.number) ? place.get(m.record.number) : Infinity);
    const same = (a, b) => a.how === b.how && a.score === b.score && a.candidate === b.candidate;
    const groups = [];
    for (const match of matches) {
      const last = groups[groups.length - 1];
      if (last && same(last[0], match)) last.push(match);
      else groups.push([match]);
    }
    return groups.flatMap((group) => group.map((m, i) => [m, i])
      .sort(([a, i], [b, j]) => at(a) - at(b) || i - j).map(([m]) => m));
  }

  // Message matches first, then pages and records holding every word, then similar wording,
  // then records holding some of the words.
  function merge(found, hits, pages) {
    const matches = tieBroken(found, hits);
    const order = [
      ...matches.filter((m) => m.how !== "similar").map((m) => ({ number: m.record.number })),
      ...pages.map((page) => ({ page })),
      ...hits.filter((h) => h.all),
      ...matches.filter((m) => m.how === "similar").map((m) => ({ number: m.record.number })),
      ...hits.filter((h) => !h.all),
    ];
    const seen = new Set();
    return order.filter((r) => {
      const key = r.page ? `page:${r.page.url}` : r.number;
      if (r.page === undefined && !Number.isInteger(r.number)) return false;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  // What to show of records: their rows in the record chunks.
  async function rows(manifest, numbers) {
    const chunks = [...new Set(numbers.map((n) => Math.floor(n / manifest.chunk)))];
    const loaded = await Promise.all(chunks.map((c) =>
      data.load(`${searchBase}r${c.toString(16)}.js`, `r${c}`)));
    const byChunk = new Map(chunks.map((c, i) => [c, loaded[i]]));
    return numbers.map((n) => byChunk.get(Math.floor(n / manifest.chunk))[n % manifest.chunk]);
  }

  function recordHref(page) {
    if (!PAGE.test(page)) return "#";
    return new URL(`errors/${page}${directoryUrls ? "/" : ".html"}`, base).href;
  }

  async function ours(query, stale) {
    const both = await manifests();
    const search = both.search;
    const plan = await engine.offThread().plan(query, both.lookup.shards);
    const words = queryWords(search, engine.lastPart(query));  // a paste's end, as the lookup
    const postings = await postingsOf(search, words);
    const hits = byWords(search, words, postings);
    const matches = await byMessage(both, query, postings, plan);
    const ranked = merge(matches, hits, pagesOf(search, words));
    const shown = ranked.slice(0, MAX_RESULTS);
    const records = shown.filter((r) => r.page === undefined).map((r) => r.number);
    const found = await rows(search, records);
    if (stale()) return;
    const byNumber = new Map(records.map((n, i) => [n, found[i]]));
    const all = [...engine.pastedNote(input), ...plan.notes];
    const notes = all.length ? ` · ${all.join(" ")}` : "";
    const items = shown.map((r) => {
      if (r.page) return item(new URL(r.page.url, base).href, r.page.title, "", "");
      const [page, repo, message, cls, meaning] = byNumber.get(r.number);
      return item(recordHref(page), message, cls ? `${repo} · ${cls}` : repo, meaning);
    });
    say(count(ranked.length) + notes);
    list.replaceChildren(...items);
    if (search.fullText) list.append(fullTextButton(query));
  }

  /* ---- results -------------------------------------------------------------------------- */

  function item(href, heading, repo, teaser) {
    const li = document.createElement("li");
    li.className = "md-search-result__item";
    const a = document.createElement("a");
    a.className = "md-search-result__link";
    a.href = onDisk(href);
    a.tabIndex = -1;
    const article = document.createElement("article");
    article.className = "md-search-result__article md-typeset";
    const icon = document.createElement("div");
    icon.className = "md-search-result__icon md-icon";
    const title = document.createElement("h1");
    title.textContent = heading;
    article.append(icon, title);
    if (repo) {
      const p = document.createElement("p");
      p.className = "errdocs-search__repo";
      p.textContent = repo;
      article.append(p);
    }
    if (teaser instanceof Node) {
      article.append(teaser);
    } else if (teaser) {
      const p = document.createElement("p");
      p.textContent = teaser;
      article.append(p);
    }
    a.append(article);
    li.append(a);
    return li;
  }

  /* ---- the full-text index (errdocs build --full-text), loaded when asked for ------------ */

  let pagefind = null;

  function loadPagefind() {
    if (!pagefind) {
      pagefind = import(new URL("pagefind/pagefind.js", base).href).then(async (module) => {
        await module.options({ excerptLength: 24 });
        // A big site's index comes in pieces (errdocs-pieces.json lists the others): merge them.
        const pieces = await fetch(new URL("pagefind/errdocs-pieces.json", base))
          .then((r) => (r.ok ? r.json() : []), () => []);
        for (const piece of Array.isArray(pieces) ? pieces : []) {
          if (/^more\/\d+\/$/.test(piece)) {
            await module.mergeIndex(new URL(`pagefind/${piece}`, base).href);
          }
        }
        await module.init();
        return module;
      });
      pagefind.catch(() => { pagefind = null; });
    }
    return pagefind;
  }

  function fullTextButton(query) {
    const li = document.createElement("li");
    li.className = "md-search-result__item errdocs-search__more";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "md-button";
    button.textContent = "Search the full text";
    button.addEventListener("click", () => fullText(query));
    li.append(button);
    return li;
  }

  // Pagefind's excerpt is HTML holding <mark> around matched words. Parse it in an inert
  // document (no scripts run, nothing loads there) and keep only its text and the marks.
  function excerpt(html) {
    const p = document.createElement("p");
    const parsed = new DOMParser().parseFromString(`<body>${html}</body>`, "text/html");
    for (const node of parsed.body.childNodes) {
      if (node.nodeName === "MARK") {
        const mark = document.createElement("mark");
        mark.textContent = node.textContent;
        p.append(mark);
      } else {
        p.append(node.textContent);
      }
    }
    return p;
  }

  function safeHref(url) {
    const resolved = new URL(url, base);
    return resolved.origin === location.origin ? resolved.href : "#";
  }

  async function fullText(query) {
    say("Searching the full text…");
    let module;
    try {
      module = await loadPagefind();
    } catch {
      say("The full-text index could not be loaded.");
      return;
    }
    const search = await module.search(query);
    const top = await Promise.all(search.results.slice(0, MAX_RESULTS).map((r) => r.data()));
    if (input.value.trim() !== query) return;
    say(`Full text: ${count(search.results.length)}`);
    list.replaceChildren(...top.map((r) => item(safeHref(r.url),
      (r.meta && r.meta.title) || r.url, (r.meta && r.meta.repo) || "",
      (r.meta && r.meta.description) || excerpt(r.excerpt || ""))));
  }

  /* ---- the dialog ----------------------------------------------------------------------- */

  async function run() {
    const query = input.value.trim();
    if (!query) {
      list.replaceChildren();
      say(translations["search.result.placeholder"] || "Type to start searching");
      return;
    }
    const stale = () => input.value.trim() !== query; // a newer query is running
    try {
      await ours(query, stale);
    } catch (error) {
      if (stale()) return;
      list.replaceChildren();
      say(`Search is not available: ${error.message}.`);
    }
    // Which query the list shows: tests (and anything else) wait for it rather than for time.
    if (!stale()) root.dataset.answered = query;
  }

  let timer = null;
  function later() {
    clearTimeout(timer);
    timer = setTimeout(run, 120);
  }

  function open(query) {
    if (typeof query === "string") input.value = query;
    if (!toggle.checked) {
      toggle.checked = true;
      toggle.dispatchEvent(new Event("change"));
    }
    input.focus();
    input.select();
    if (input.value) run();
  }

  function close() {
    toggle.checked = false;
    toggle.dispatchEvent(new Event("change"));
    input.blur();
  }

  function typing(target) {
    return target instanceof HTMLElement &&
      (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  function move(step) {
    const stops = [input, ...list.querySelectorAll(".md-search-result__link, .errdocs-search__more button")];
    const at = stops.indexOf(document.activeElement);
    stops[(Math.max(at, 0) + step + stops.length) % stops.length].focus();
  }

  input.addEventListener("focus", () => { manifests().catch(() => {}); });
  input.addEventListener("input", later);
  engine.keepPastesShort(input);
  toggle.addEventListener("change", () => { if (toggle.checked) input.focus(); });
  form.addEventListener("reset", () => setTimeout(run));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const first = list.querySelector(".md-search-result__link");
    if (first) first.click();
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (toggle.checked) {
      if (event.key === "Escape") { event.preventDefault(); close(); }
      else if (event.key === "ArrowDown") { event.preventDefault(); move(1); }
      else if (event.key === "ArrowUp") { event.preventDefault(); move(-1); }
    } else if (!typing(event.target) && ["/", "s", "f"].includes(event.key)) {
      event.preventDefault();
      open();
    }
  });

  // The words of a missing page's address: /errors/o/r/unknown-mlx-async-mode/ → "unknown mlx
  // async mode". Record URLs are made from their messages, so this often finds the page.
  function wordsOfPath() {
    const segments = decodeURIComponent(location.pathname).split("/").filter(Boolean);
    const last = (segments.pop() || "").replace(/\.html?$/, "");
    return last.replace(/[-_.]+/g, " ").replace(/\b[0-9a-f]{6,}\b/g, "").trim().slice(0, 100);
  }

  // Buttons elsewhere on the page (the 404 page) open the search, optionally with a query.
  for (const button of document.querySelectorAll("[data-errdocs-search-open]")) {
    if ("errdocsSearchFromPath" in button.dataset) {
      const words = wordsOfPath();
      if (words && words !== "index") {
        button.dataset.query = words;
        button.textContent = `Search for “${words}”`;
      }
    }
    button.addEventListener("click", () => open(button.dataset.query));
  }

  // A search from the browser's address bar (OpenSearch, /opensearch.xml) lands on a page
  // with ?q=...: show its results.
  const asked = new URLSearchParams(location.search).get("q");
  if (asked && asked.trim()) open(asked.trim());

  window.errdocsSearch = { open };
})();
