/* errdocs: on a record page read on a narrow screen, scroll each source excerpt sideways so
   that the start of its marked (raising) line is in view. Code lines do not wrap, and the
   raising line may be indented past the right edge of a phone's screen. */
(function () {
  "use strict";

  /* The first character of the line that is not white space, as a Range; null if none. */
  function firstCharacter(line) {
    var walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT, {
      acceptNode: function (node) {
        return node.parentNode.closest(".errdocs-sr")
          ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
      }
    });
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      var at = node.data.search(/\S/);
      if (at >= 0) {
        var range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + 1);
        return range;
      }
    }
    return null;
  }

  function reveal(line) {
    var box = line.closest("code");
    var start = firstCharacter(line);
    if (!box || !start || box.scrollWidth <= box.clientWidth) return;
    var left = start.getBoundingClientRect().left - box.getBoundingClientRect().left;
    var margin = 2 * parseFloat(getComputedStyle(box).fontSize);
    /* Only when the start is not in view: then show it a little way from the left edge. */
    if (left + box.scrollLeft + margin > box.scrollLeft + box.clientWidth) {
      box.scrollLeft = Math.max(0, left + box.scrollLeft - margin);
    }
  }

  document.querySelectorAll(".highlighttable .hll").forEach(reveal);
})();
