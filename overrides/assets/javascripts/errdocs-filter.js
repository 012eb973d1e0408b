/*
 * errdocs: filters on a listing page (a repository, category or tag, and the catalogue).
 *
 * The page's list is plain HTML, paged by the build; this script adds a filter bar above it
 * (by class, kind, severity, handling strategy, language and, where the page spans several,
 * repository) and shows the records matching it, 50 a page, from the data errdocs writes
 * (generator/errdocs/pages/filters.py): the listing's summary (its values and counts), one
 * list of ids per page of results for large listings, and the row files of those ids. They
 * are scripts loaded by loader.js, so this works from disk (file://) too.
 *
 * The filter is in the page's address (?class=TypeError&page=2): a filtered list survives a
 * reload, can be shared, and Back goes to the previous filter. Record text is untrusted: it
 * is put on the page as text only, and links go only to the site's own record pages.
 */
(() => {
  "use strict";

  const box = document.querySelector("[data-errdocs-filter]");
  const data = window.errdocsData;     // loader.js
  const engine = window.errdocsLookup; // lookup.js (its FNV-1a hash)
  const script = document.currentScript;
  if (!box || !data || !engine || !script) return;

  const VERSION = 1;
  const KEY = /^[a-z0-9]+$/;
  const PAGE = /^[a-z0-9._-]+(?:\/[a-z0-9._-]+)*$/; // what the generator's paths look like
  const LABELS = { class: "Class", type: "Kind", severity: "Severity",
    handling: "Handling", language: "Language", repo: "Repository" };
  const COLUMN = { class: 4, type: 5, severity: 6, handling: 7, language: 8, repo: 9 };
  const key = box.getAttribute("data-errdocs-filter");
  if (!KEY.test(key)) return;

  const config = JSON.parse(document.getElementById("__config").textContent);
  const base = new URL(`${config.base.replace(/\/$/, "")}/`, location.href);
  const folder = new URL("errors/assets/filter/", base).href;
  const directoryUrls = script.getAttribute("data-directory-urls") !== "false";
  // What the filtered rows replace: the page's own list and its pager (not on the catalogue,
  // whose page lists other things).
  const replaced = key === "all" ? [] :
    [...document.querySelectorAll(".errdocs-rows, .errdocs-pager")]
      .filter((el) => box.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);

  const load = (path, name) => data.load(folder + path, `f${name}`);
  const number = (n) => n.toLocaleString("en");

  function element(tag, text, className) {
    const el = document.createElement(tag);
    if (text !== undefined) el.textContent = text;
    if (className) el.className = className;
    return el;
  }

  /* ---- the address ------------------------------------------------------------------------ */

  // The chosen value of each facet the listing has, and the page of results.
  function stateOf(summary, search) {
    const params = new URLSearchParams(search);
    const chosen = {};
    for (const [name, values] of summary.facets) {
      const value = params.get(name);
      if (value !== null && values.some((v) => v[0] === value)) chosen[name] = value;
    }
    const page = Math.max(1, parseInt(params.get("page") || "1", 10) || 1);
    return { chosen, page };
  }

  function addressOf(state) {
    const params = new URLSearchParams(location.search);
    for (const name of Object.keys(LABELS)) params.delete(name);
    params.delete("page");
    for (const [name, value] of Object.entries(state.chosen)) params.set(name, value);
    if (state.page > 1 && Object.keys(state.chosen).length) params.set("page", String(state.page));
    const query = params.toString();
    return `${location.pathname}${query ? `?${query}` : ""}${location.hash}`;
  }

  /* ---- the records of a filter ------------------------------------------------------------ */

  // The ids on page `page` of the filter, the total (or what bounds it), and how it was found.
  async function idsOf(summary, state) {
    const chosen = Object.entries(state.chosen);
    const size = manifest.page;
    if (summary.records) {  // a small listing: every record's values are in its summary
      const columns = summary.facets.map(([name]) => name);
      const wanted = chosen.map(([name, value]) => {
        const values = summary.facets[columns.indexOf(name)][1];
        return [columns.indexOf(name) + 1, values.findIndex((v) => v[0] === value)];
      });
      const ids = summary.records.filter((r) => wanted.every(([c, i]) => r[c] === i))
        .map((r) => r[0]);
      const pages = Math.max(1, Math.ceil(ids.length / size));
      const page = Math.min(state.page, pages);
      return { ids: ids.slice((page - 1) * size, page * size), total: ids.length, pages, page };
    }
    // A large listing: the ids of the rarest chosen value, a file a page; the rows are then
    // checked against the other chosen values.
    const lists = chosen.map(([name, value]) => {
      const [, values] = summary.facets.find(([n]) => n === name);
      const [, count, file] = values.find((v) => v[0] === value);
      return { name, count, file };
    }).sort((a, b) => a.count - b.count);
    const rarest = lists[0];
    const pages = Math.max(1, Math.ceil(rarest.count / size));
    const page = Math.min(state.page, pages);
    if (!KEY.test(rarest.file)) throw new Error("unexpected data");
    const ids = await load(`g/${key}/${rarest.name}-${rarest.file}-${page}.js`,
      `g${key}/${rarest.name}-${rarest.file}-${page}`);
    return { ids, total: rarest.count, pages, page, among: lists.length > 1 ? rarest : null };
  }

  function rowFile(id, files) {
    const bytes = new TextEncoder().encode(id);
    let text = "";
    for (const b of bytes) text += String.fromCharCode(b);
    return engine.fnv1a(text) % files;
  }

  async function rowsOf(manifest, ids) {
    const files = [...new Set(ids.map((id) => rowFile(id, manifest.rows)))];
    const loaded = await Promise.all(files.map((n) => load(`r/${n.toString(16)}.js`, `r${n}`)));
    const byFile = new Map(files.map((n, i) => [n, loaded[i]]));
    return ids.map((id) => {
      const file = byFile.get(rowFile(id, manifest.rows));
      return Object.prototype.hasOwnProperty.call(file, id) ? file[id] : null;
    }).filter((row) => Array.isArray(row));
  }

  /* ---- what the reader sees ---------------------------------------------------------------- */

  function link(page) {
    if (typeof page !== "string" || !PAGE.test(page)) return null;
    return onDisk(new URL(`errors/${page}${directoryUrls ? "/" : ".html"}`, base).href);
  }

  // Opened from disk (the offline bundle), a folder's address shows its listing, not its page:
  // name the page's index.html (kept: the fragment).
  function onDisk(href) {
    if (location.protocol !== "file:" || href === "#") return href;
    const url = new URL(href);
    if (url.pathname.endsWith("/")) url.pathname += "index.html";
    return url.href;
  }

  // A row as the build writes it (partials/entries.md.j2): message, class · file:line
  // (· repository), first sentence. Text only.
  function item(row, showRepo) {
    const [page, message, where, summary] = row;
    const li = element("li");
    const href = link(page);
    const title = element(href ? "a" : "span", message);
    if (href) title.href = href;
    li.append(title, element("br"));
    const facts = element("span", undefined, "errdocs-row__facts");
    const parts = [];
    if (row[COLUMN.class] !== "(none)") parts.push(element("code", row[COLUMN.class]));
    if (where) parts.push(element("code", where));
    if (showRepo) parts.push(document.createTextNode(row[COLUMN.repo]));
    parts.forEach((part, i) => {
      if (i) facts.append(" · ");
      facts.append(part);
    });
    li.append(facts);
    if (summary) li.append(element("br"), summary);
    return li;
  }

  function describe(summary, state) {
    return Object.entries(state.chosen).map(([name, value]) =>
      `${LABELS[name].toLowerCase()} “${value}”`).join(" and ");
  }

  function build(summary) {
    const form = element("form", undefined, "errdocs-filter__bar");
    form.setAttribute("role", "search");
    form.setAttribute("aria-label", "Filter these errors");
    // The selects wrap in a box of their own, so from a tablet up the Clear button stays at
    // the right of their last line instead of being left alone on a line (errdocs.css).
    const fields = element("div", undefined, "errdocs-filter__fields");
    const selects = {};
    for (const [name, values, hidden] of summary.facets) {
      if (values.length < 2 && !hidden) continue;  // one value filters nothing out
      const label = element("label", undefined, "errdocs-filter__field");
      label.append(element("span", LABELS[name]));
      const select = element("select");
      select.name = name;
      const all = element("option", `All (${number(summary.total)})`);
      all.value = "";
      select.append(all);
      for (const [value, count] of values) {
        const option = element("option", `${value} (${number(count)})`);
        option.value = value;
        select.append(option);
      }
      if (hidden) {  // the data offer a facet's most common values only (a bounded file)
        const more = element("option", `Only the most common are listed: ${number(hidden)} ` +
          `more error${hidden === 1 ? "" : "s"} with rarer values`);
        more.disabled = true;
        select.append(more);
      }
      label.append(select);
      fields.append(label);
      selects[name] = select;
    }
    const clear = element("button", "Clear", "md-button errdocs-filter__clear");
    clear.type = "reset";
    form.append(fields, clear);
    const status = element("p", undefined, "errdocs-filter__status");
    status.setAttribute("aria-live", "polite");
    const results = element("div", undefined, "errdocs-rows errdocs-filter__rows");
    const list = element("ul");
    results.append(list);
    const pager = element("nav", undefined, "errdocs-filter__pager");
    pager.setAttribute("aria-label", "Pages of filtered errors");
    box.append(form, status, results, pager);
    box.hidden = false;
    return { form, selects, clear, status, results, list, pager };
  }

  function pageLink(ui, state, page, text) {
    const a = element("a", text);
    a.href = addressOf({ chosen: state.chosen, page });
    a.addEventListener("click", (event) => {
      event.preventDefault();
      go({ chosen: state.chosen, page });
      box.scrollIntoView({ block: "start" });
    });
    return a;
  }

  let ui = null;
  let summary = null;
  let manifest = null;
  let shown = 0;  // the latest render wins

  async function render(state) {
    const turn = ++shown;
    for (const [name, select] of Object.entries(ui.selects)) {
      select.value = state.chosen[name] || "";
      select.parentNode.classList.toggle("errdocs-filter__field--on", Boolean(select.value));
    }
    const active = Object.keys(state.chosen).length > 0;
    ui.clear.hidden = !active;
    replaced.forEach((el) => { el.hidden = active; });
    ui.results.hidden = ui.pager.hidden = !active;
    if (!active) {
      ui.status.textContent = "";
      ui.list.replaceChildren();
      ui.pager.replaceChildren();
      return;
    }
    ui.status.textContent = "Loading…";
    let found;
    let rows;
    try {
      found = await idsOf(summary, state);
      rows = await rowsOf(manifest, found.ids);
    } catch (error) {
      if (turn === shown) ui.status.textContent = `The filter could not load its data (${error.message}).`;
      return;
    }
    if (turn !== shown) return;
    if (found.among) {
      rows = rows.filter((row) => Object.entries(state.chosen)
        .every(([name, value]) => row[COLUMN[name]] === value));
    }
    const what = describe(summary, state);
    const first = (found.page - 1) * manifest.page;
    if (found.among) {
      const among = `${LABELS[found.among.name].toLowerCase()} “${state.chosen[found.among.name]}”`;
      ui.status.textContent = `${number(rows.length)} with ${what} among errors ` +
        `${number(first + 1)}–${number(first + found.ids.length)} of the ` +
        `${number(found.total)} with ${among}.`;
    } else if (found.total === 0) {
      ui.status.textContent = `No error with ${what}.`;
    } else {
      ui.status.textContent = `${number(found.total)} error${found.total === 1 ? "" : "s"} with ` +
        `${what}` + (found.pages > 1 ? `, ${number(first + 1)}–${number(first + rows.length)}:` : ":");
    }
    ui.list.replaceChildren(...rows.map((row) => item(row, summary.showRepo)));
    ui.pager.replaceChildren();
    if (found.pages > 1) {
      if (found.page > 1) ui.pager.append(pageLink(ui, state, found.page - 1, "Previous"), " ");
      ui.pager.append(element("span", `Page ${number(found.page)} of ${number(found.pages)}`));
      if (found.page < found.pages) ui.pager.append(" ", pageLink(ui, state, found.page + 1, "Next"));
    }
  }

  function go(state) {
    const address = addressOf(state);
    if (address !== `${location.pathname}${location.search}${location.hash}`) {
      history.pushState(null, "", address);
    }
    render(state);
  }

  function chosenFromForm() {
    const chosen = {};
    for (const [name, select] of Object.entries(ui.selects)) {
      if (select.value) chosen[name] = select.value;
    }
    return chosen;
  }

  Promise.all([load("manifest.js", "filter"), load(`g/${key}.js`, `g${key}`)])
    .then(([m, s]) => {
      if (m.version !== VERSION || s.version !== VERSION) throw new Error("unknown data version");
      manifest = m;
      summary = s;
      ui = build(summary);
      ui.form.addEventListener("change", () => go({ chosen: chosenFromForm(), page: 1 }));
      ui.form.addEventListener("reset", (event) => {
        event.preventDefault();
        go({ chosen: {}, page: 1 });
      });
      ui.form.addEventListener("submit", (event) => event.preventDefault());
      window.addEventListener("popstate", () => render(stateOf(summary, location.search)));
      render(stateOf(summary, location.search));
    })
    .catch(() => { /* no filter: the page's own list stays, as without JavaScript */ });
})();
