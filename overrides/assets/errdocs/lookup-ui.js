/*
 * The "paste your error" box: loads the lookup data the generator wrote (through loader.js, as
 * <script> files, which also work in a site opened from disk, where fetch() does not) and lists
 * the matching pages. Record text is only ever set as textContent.
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

  function render(form, list, status, matches) {
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
    status.textContent = matches.length
      ? matches.length + " matching page" + (matches.length === 1 ? "" : "s") + ":"
      : "No matching error found. Try the search box at the top with a few words of it.";
  }

  function run(form) {
    var text = form.querySelector("textarea").value;
    var list = form.querySelector(".errdocs-lookup__results");
    var status = form.querySelector(".errdocs-lookup__status");
    var base = form.getAttribute("data-base");
    if (!text.trim()) {
      list.textContent = status.textContent = "";
      return;
    }
    status.textContent = "Looking it up…";
    load(base, "manifest", "manifest.js").then(function (manifest) {
      if (manifest.version !== lookup.DATA_VERSION) throw new Error("unknown data version");
      var plan = lookup.plan(text, manifest.shards);
      return Promise.all(plan.shards.map(function (n) {
        return load(base, String(n), "s" + n.toString(16) + ".js");
      }));
    }).then(function (shards) {
      if (text !== form.querySelector("textarea").value) return;  // a newer lookup runs
      var entries = [].concat.apply([], shards);
      render(form, list, status, lookup.rank(entries, text, 10));
    }).catch(function (error) {
      list.textContent = "";
      status.textContent = "The lookup data could not be loaded (" + error.message + ").";
    });
  }

  function setUp(form) {
    var timer = null;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      run(form);
    });
    form.querySelector("textarea").addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { run(form); }, 250);
    });
    form.querySelector("textarea").addEventListener("keydown", function (event) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        run(form);
      }
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("form[data-errdocs-lookup]"), setUp);
})();
