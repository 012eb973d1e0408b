/*
 * errdocs: loads the data files errdocs writes, shared by the paste box and the search box.
 *
 * Data files are scripts calling __errdocsLookup(name, data), not JSON, because fetch() does
 * not work in a site opened from disk and a <script> does. Names are unique across the data
 * sets ("manifest" and "N" for the lookup, "search", "wN" and "rN" for the search).
 */
(function () {
  "use strict";
  if (window.errdocsData) return;  // a page holding both boxes includes this twice

  var pending = {};  // data name -> [resolve, reject]
  var loaded = {};   // data name -> promise of its data

  window.__errdocsLookup = function (name, data) {
    var waiting = pending[String(name)];
    delete pending[String(name)];
    if (waiting) waiting[0](data);
  };

  function load(url, name) {
    if (!loaded[name]) {
      loaded[name] = new Promise(function (resolve, reject) {
        pending[name] = [resolve, reject];
        var script = document.createElement("script");
        script.src = url;
        script.async = true;
        script.onerror = function () {
          delete loaded[name];
          delete pending[name];
          reject(new Error("could not load " + url.split("/").pop()));
        };
        script.onload = function () {  // it ran, and should have registered its data
          if (!pending[name]) return;
          delete pending[name];
          reject(new Error(url.split("/").pop() + " holds no data"));
        };
        document.head.appendChild(script);
      });
    }
    return loaded[name];
  }

  window.errdocsData = { load: load };
})();
