/*
 * The "paste your error" box: loads the lookup data the generator wrote (through loader.js, as
 * <script> files, which also work in a site opened from disk, where fetch() does not) and lists
 * the matching pages. The matching runs in lookup.js' worker, under a time budget: the page
 * stays responsive whatever a record's pattern does. Record text is only ever set as
 * textContent.
 */
(function () {
  "use strict";

  var lookup = window.errdocsLookup;
  function load(base, name, file) {
    return window.errdocsData.load(base + file, name);  // loader.js
  }

  var PAGE = /^[a-z0-9._-]+(?:\/[a-z0-9._-]+)*$/;  // what the generator's paths look like

  function href(form, page) {
    var root = form.getAttribute("data-root") || ".";
    var prefix = root.replace(/\/+$/, "") + "/errors/" + page;
    if (form.getAttribute("data-directory-urls") === "false") return prefix + ".html";
    return prefix + (location.protocol === "file:" ? "/index.html" : "/");
  }

  var WHY = {
    "pattern": "matches its message pattern",
    "template": "matches its message template",
    "pattern-part": "its message pattern matches part of what you pasted",
    "template-part": "its message template matches part of what you pasted"
  };

  function render(form, list, status, matches, notes) {
    status.textContent = notes.concat([matches.length
      ? matches.length + " matching page" + (matches.length === 1 ? "" : "s") + ":"
      : "No matching error found. Try the search box at the top with a few words of it."
    ]).join(" ");
    // The same results again (the typing's lookup, then the button's) leave the list as it
    // is: replaced between a click's press and release, a link never gets the click.
    var shown = JSON.stringify(matches.map(function (match) {
      return [match.record.page, match.record.message, match.record.repo, match.how,
              match.score];
    }));
    if (list.errdocsShown === shown) return;
    list.errdocsShown = shown;
    list.textContent = "";
    matches.forEach(function (match) {
      if (!PAGE.test(match.record.page)) return;
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = href(form, match.record.page);
      link.textContent = match.record.message;
      var repo = document.createElement("span");
      repo.className = "errdocs-lookup__repo";
      repo.textContent = match.record.repo;
      var why = document.createElement("span");
      why.className = "errdocs-lookup__why";
      why.textContent = match.how === "similar"
        ? "similar wording (" + Math.round(match.score * 100) + "%)"
        : WHY[match.how];
      item.appendChild(link);
      item.appendChild(repo);
      item.appendChild(why);
      list.appendChild(item);
    });
  }

  function run(form) {
    var text = form.querySelector("textarea").value;
    var list = form.querySelector(".errdocs-lookup__results");
    var status = form.querySelector(".errdocs-lookup__status");
    var base = form.getAttribute("data-base");
    if (!text.trim()) {
      list.textContent = status.textContent = "";
      list.errdocsShown = null;
      return;
    }
    status.textContent = "Looking it up…";
    var worker = lookup.offThread(), notes = [];
    function current() { return text === form.querySelector("textarea").value; }
    load(base, "manifest", "manifest.js").then(function (manifest) {
      if (manifest.version !== lookup.DATA_VERSION) throw new Error("unknown data version");
      return worker.plan(text, manifest.shards);
    }).then(function (plan) {
      notes = lookup.pastedNote(form.querySelector("textarea")).concat(plan.notes);
      return Promise.all(plan.shards.map(function (n) {
        return load(base, String(n), "s" + n.toString(16) + ".js");
      })).then(function (loaded) {
        var shards = {};
        plan.shards.forEach(function (n, i) { shards[String(n)] = loaded[i]; });
        return current() ? worker.rank(shards, text, 10) : null;
      });
    }).then(function (matches) {
      if (matches && current()) render(form, list, status, matches, notes);  // else a newer lookup runs
    }).catch(function (error) {
      if (!current()) return;
      list.textContent = "";
      list.errdocsShown = null;
      status.textContent = "The lookup could not be done (" + error.message + ").";
    });
  }

  function setUp(form) {
    var timer = null;
    lookup.keepPastesShort(form.querySelector("textarea"));
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      clearTimeout(timer);  // (the typing's lookup: this one is of the same text)
      run(form);
    });
    form.querySelector("textarea").addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { run(form); }, 250);
    });
    form.querySelector("textarea").addEventListener("keydown", function (event) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        clearTimeout(timer);
        run(form);
      }
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("form[data-errdocs-lookup]"), setUp);
})();
