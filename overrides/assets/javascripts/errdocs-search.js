/*
 * errdocs: the hosted site's search, Material's search dialog driven by Pagefind.
 *
 * Material's lunr index costs about 4 KB a page (over 1 GB at 310,000 records), so the hosted
 * site is indexed after the build by Pagefind, whose index is split into chunks fetched as a
 * query needs them. Pagefind's script is loaded only when the search is first used.
 *
 * Everything shown comes from the index of this site; it is still put on the page as text
 * (titles, repositories) or as text and <mark> elements only (excerpts), never as markup.
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
  const MAX_RESULTS = 10;

  // Material's base URL is relative to this page ("..", "../.."); "/" on the 404 page.
  const base = new URL(`${config.base.replace(/\/$/, "")}/`, location.href);
  let pagefind = null;

  function load() {
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
      pagefind.catch(() => {
        pagefind = null;
        say("Search is not available: this site has no search index.");
      });
    }
    return pagefind;
  }

  function say(text) {
    meta.textContent = text;
  }

  function count(n) {
    const key = n === 0 ? "search.result.none" : n === 1 ? "search.result.one" : "search.result.other";
    return (translations[key] || "# matching documents").replace("#", String(n));
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

  function item(result) {
    const li = document.createElement("li");
    li.className = "md-search-result__item";
    const a = document.createElement("a");
    a.className = "md-search-result__link";
    a.href = safeHref(result.url);
    a.tabIndex = -1;
    const article = document.createElement("article");
    article.className = "md-search-result__article md-typeset";
    const icon = document.createElement("div");
    icon.className = "md-search-result__icon md-icon";
    const title = document.createElement("h1");
    title.textContent = (result.meta && result.meta.title) || result.url;
    article.append(icon, title);
    if (result.meta && result.meta.repo) {
      const repo = document.createElement("p");
      repo.className = "errdocs-search__repo";
      repo.textContent = result.meta.repo;
      article.append(repo);
    }
    // A pasted message matches the title most, and the excerpt would repeat it: show what the
    // error means instead, when the page says.
    const teaser = result.meta && result.meta.description;
    if (teaser) {
      const p = document.createElement("p");
      p.textContent = teaser;
      article.append(p);
    } else {
      article.append(excerpt(result.excerpt || ""));
    }
    a.append(article);
    li.append(a);
    return li;
  }

  // Pagefind returns only pages holding every word. A pasted message holds words the page
  // cannot know ("Unknown mode: turbo" for the template "Unknown mode: {mode}"), so when no page
  // has them all, search word by word and rank pages by how many of the words they hold.
  const MAX_WORDS = 12;
  // Words too common to tell pages apart; each costs a download of its part of the index.
  const COMMON = new Set(["an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is",
    "it", "of", "on", "or", "the", "this", "to", "was", "with"]);

  function wordsOf(query) {
    const words = query.toLowerCase().split(/[^\p{L}\p{N}_]+/u)
      .filter((w) => w.length > 1 && !COMMON.has(w));
    return [...new Set(words)].slice(0, MAX_WORDS);
  }

  async function closest(module, query, stale) {
    const words = wordsOf(query);
    const found = new Map();
    for (const word of words) {
      const search = await module.search(word);
      if (stale()) return null;
      for (const result of search.results) {
        const hit = found.get(result.id) || { result, words: 0, score: 0 };
        hit.words += 1;
        hit.score += result.score;
        found.set(result.id, hit);
      }
    }
    // Pages holding at least half of the words, most words first.
    const enough = Math.ceil(words.length / 2);
    return [...found.values()]
      .filter((hit) => hit.words >= enough)
      .sort((a, b) => b.words - a.words || b.score - a.score)
      .map((hit) => hit.result);
  }

  async function run() {
    const query = input.value.trim();
    if (!query) {
      list.replaceChildren();
      say(translations["search.result.placeholder"] || "Type to start searching");
      return;
    }
    let module;
    try {
      module = await load();
    } catch {
      return;
    }
    const stale = () => input.value.trim() !== query; // a newer query is running
    const search = await module.debouncedSearch(query, {}, 120);
    if (search === null || stale()) return;
    let results = search.results;
    let summary = count(results.length);
    if (results.length === 0 && wordsOf(query).length > 1) {
      results = await closest(module, query, stale);
      if (results === null) return;
      if (results.length) summary = "No page has all these words; the closest:";
    }
    const top = await Promise.all(results.slice(0, MAX_RESULTS).map((r) => r.data()));
    if (stale()) return;
    say(summary);
    list.replaceChildren(...top.map(item));
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
    const stops = [input, ...list.querySelectorAll(".md-search-result__link")];
    const at = stops.indexOf(document.activeElement);
    stops[(Math.max(at, 0) + step + stops.length) % stops.length].focus();
  }

  input.addEventListener("focus", () => { load(); });
  input.addEventListener("input", run);
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

  window.errdocsSearch = { open };
})();
