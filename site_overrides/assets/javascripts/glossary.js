/* Glossary tooltips (issue 7).
 *
 * The Markdown extension grader.glossary.extension links the first use of each term on a page:
 *   <a class="glossary-term" href="…/glossary/#id" data-glossary-term="id" data-glossary-def="…">
 * This script gives each such link a tooltip element (role="tooltip") holding the short
 * definition, points the link's aria-describedby at it, and shows it on hover and on keyboard
 * focus; Escape hides it, and the pointer can move onto the tooltip without losing it.
 * Runs on every page change of Material's instant navigation (document$) and is idempotent.
 */
(function () {
  "use strict";

  var HIDE_DELAY_MS = 150;
  var counter = 0;
  var shown = null; // {link, tip}
  var hideTimer = null;

  function cancelHide() {
    if (hideTimer !== null) {
      clearTimeout(hideTimer);
      hideTimer = null;
    }
  }

  function hide() {
    cancelHide();
    if (shown) {
      shown.tip.hidden = true;
      shown.link.removeAttribute("data-glossary-open");
      shown = null;
    }
  }

  function scheduleHide() {
    cancelHide();
    hideTimer = setTimeout(hide, HIDE_DELAY_MS);
  }

  function place(link, tip) {
    var rect = link.getBoundingClientRect();
    var viewWidth = document.documentElement.clientWidth;
    var left = rect.left + window.scrollX;
    var maxLeft = window.scrollX + viewWidth - tip.offsetWidth - 8;
    left = Math.max(window.scrollX + 8, Math.min(left, maxLeft));
    var top = rect.bottom + window.scrollY + 6;
    var roomBelow = window.innerHeight - rect.bottom;
    if (roomBelow < tip.offsetHeight + 12 && rect.top > tip.offsetHeight + 12) {
      top = rect.top + window.scrollY - tip.offsetHeight - 6;
    }
    tip.style.left = left + "px";
    tip.style.top = top + "px";
  }

  function show(link, tip) {
    cancelHide();
    if (shown && shown.tip !== tip) hide();
    tip.hidden = false;
    place(link, tip);
    link.setAttribute("data-glossary-open", "");
    shown = { link: link, tip: tip };
  }

  function setUp(link) {
    if (link.hasAttribute("data-glossary-ready")) return;
    var definition = link.getAttribute("data-glossary-def");
    if (!definition) return;
    link.setAttribute("data-glossary-ready", "");
    var tip = document.createElement("div");
    counter += 1;
    tip.id = "glossary-tip-" + counter;
    tip.className = "glossary-tooltip";
    tip.setAttribute("role", "tooltip");
    tip.textContent = definition;
    tip.hidden = true;
    document.body.appendChild(tip);
    link.setAttribute("aria-describedby", tip.id);
    link.addEventListener("mouseenter", function () { show(link, tip); });
    link.addEventListener("mouseleave", scheduleHide);
    link.addEventListener("focus", function () { show(link, tip); });
    link.addEventListener("blur", hide);
    tip.addEventListener("mouseenter", cancelHide);
    tip.addEventListener("mouseleave", scheduleHide);
  }

  function removeOrphans() {
    var tips = document.querySelectorAll("body > .glossary-tooltip");
    for (var i = 0; i < tips.length; i++) {
      var owner = document.querySelector('[aria-describedby="' + tips[i].id + '"]');
      if (!owner) tips[i].remove();
    }
  }

  function init() {
    hide();
    removeOrphans();
    var links = document.querySelectorAll("a.glossary-term[data-glossary-def]");
    for (var i = 0; i < links.length; i++) setUp(links[i]);
  }

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && shown) hide();
  });
  window.addEventListener("resize", function () { if (shown) place(shown.link, shown.tip); });

  if (typeof document$ !== "undefined" && document$.subscribe) {
    document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
