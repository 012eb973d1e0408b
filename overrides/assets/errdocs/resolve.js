/*
 * errdocs: the 404 page finds where a missing address went.
 *
 * An id typed in another case (/id/ABC123/) is first tried in lowercase, the way the pages
 * of ids made of [a-z0-9._-] are spelt (the producer's ids are). Otherwise the address is
 * looked up in the data `errdocs build` writes (generator/errdocs/changes.py, resolve_data):
 * the other ids, lowercase ("id:<id>"), and every address a record left ("page:<address>",
 * found in any form: /index.html, .html, no trailing slash), each with the pages it may
 * mean, in shards chosen by the FNV-1a hash lookup.js has. One page: the reader is sent
 * there; several: they are listed.
 */
(function () {
  "use strict";
  var holder = document.querySelector("[data-errdocs-resolve]");
  var engine = window.errdocsLookup;
  var data = window.errdocsData;
  if (!holder || !engine || !data) return;
  var dataBase = holder.getAttribute("data-errdocs-resolve");
  var root = new URL(holder.getAttribute("data-errdocs-root"), location.href);
  var SAFE = /^[a-z0-9._\/-]*$/;  // the generator's addresses are made of these

  function keys() {
    if (location.pathname.indexOf(root.pathname) !== 0) return [];
    var rest = location.pathname.slice(root.pathname.length);
    try { rest = decodeURIComponent(rest); } catch (error) { /* keep it encoded */ }
    rest = rest.replace(/\/index\.html?$/, "").replace(/\.html?$/, "").replace(/\/+$/, "");
    var found = [];
    if (rest.indexOf("id/") === 0 && rest.length > 3) found.push("id:" + rest.slice(3).toLowerCase());
    if (rest) found.push("page:" + rest.toLowerCase());
    return found;
  }

  function show(candidates) {
    var usable = candidates.filter(function (c) { return SAFE.test(c[0]); });
    if (!usable.length) return;
    var box = document.createElement("div");
    box.className = "admonition info";
    var title = document.createElement("p");
    title.className = "admonition-title";
    title.textContent = usable.length === 1 ? "This page has moved" : "This address may mean";
    box.appendChild(title);
    var list = document.createElement("ul");
    usable.forEach(function (c) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = new URL(c[0], root).href;
      link.textContent = c[1] || c[0];
      item.appendChild(link);
      list.appendChild(item);
    });
    box.appendChild(list);
    holder.hidden = false;
    holder.appendChild(box);
    if (usable.length === 1) location.replace(new URL(usable[0][0], root).href + location.hash);
  }

  var typed = location.pathname.slice(root.pathname.length).match(/^id\/([^\/]+)\/?$/);
  if (typed && location.pathname.indexOf(root.pathname) === 0) {
    var lower = typed[1].toLowerCase();
    if (lower !== typed[1] && /^[a-z0-9._-]+$/.test(lower)) {
      location.replace(new URL("id/" + lower + "/", root).href);
      return;
    }
  }

  var wanted = keys();
  if (!wanted.length) return;
  data.load(dataBase + "manifest.js", "resolve").then(function (manifest) {
    if (manifest.version !== 1) throw new Error("unknown data version");
    return Promise.all(wanted.map(function (key) {
      var shard = engine.fnv1a(key) % manifest.shards;
      return data.load(dataBase + "r" + shard.toString(16) + ".js", "resolve-" + shard)
        .then(function (entries) { return entries[key] || []; });
    }));
  }).then(function (results) {
    var seen = {};
    var candidates = [];
    results.forEach(function (list) {
      list.forEach(function (c) { if (!seen[c[0]]) { seen[c[0]] = true; candidates.push(c); } });
    });
    show(candidates);
  }).catch(function () { /* the page still offers search and the catalogue */ });
})();
