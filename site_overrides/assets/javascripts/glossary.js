/* Glossary tooltips (issue 7).
 *
 * The Markdown extension grader.glossary.extension links the first use of each term on a page:
 *   <a class="glossary-term" href="…/glossary/#id" data-glossary-term="id" data-glossary-def="…">
 * This script gives each such link a tooltip element (role="tooltip") holding the short
 * definition, points the link's aria-describedby at it, and shows it on hover and on keyboard
 * focus; Escape hides it, and the pointer can move onto the tooltip without losing it.
 * Links to a glossary entry that the theme writes outside the Markdown (a lesson's
 * "Prerequisites: <term>") get the same tooltip; their definition is read, once, from the
 * glossary page itself (its entries' ".glossary-short" paragraphs).
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

  var definitions = null; // glossary page URL -> Promise of {term id: short definition}

  function loadDefinitions(pageUrl) {
    definitions = definitions || {};
    if (!definitions[pageUrl]) {
      definitions[pageUrl] = fetch(pageUrl)
        .then(function (response) { return response.ok ? response.text() : ""; })
        .then(function (html) {
          var found = {};
          var doc = new DOMParser().parseFromString(html, "text/html");
          var entries = doc.querySelectorAll("h3.glossary-entry[id]");
          for (var i = 0; i < entries.length; i++) {
            var short = entries[i].nextElementSibling;
            if (short && short.classList.contains("glossary-short")) {
              found[entries[i].id] = short.textContent.trim();
            }
          }
          return found;
        })
        .catch(function () { return {}; });
    }
    return definitions[pageUrl];
  }

  function fill(link, tip) {
    var url = new URL(link.href, location.href);
    var termId = decodeURIComponent(url.hash.slice(1));
    url.hash = "";
    return loadDefinitions(url.href).then(function (found) {
      if (found[termId]) {
        tip.textContent = found[termId];
        link.setAttribute("data-glossary-def", found[termId]);
      }
      return Boolean(found[termId]);
    });
  }

  function show(link, tip) {
    cancelHide();
    if (shown && shown.tip !== tip) hide();
    shown = { link: link, tip: tip };
    link.setAttribute("data-glossary-open", "");
    if (!tip.textContent) {
      fill(link, tip).then(function (ok) {
        if (ok && shown && shown.tip === tip) {
          tip.hidden = false;
          place(link, tip);
        }
      });
      return;
    }
    tip.hidden = false;
    place(link, tip);
  }

  function setUp(link) {
    if (link.hasAttribute("data-glossary-ready")) return;
    link.setAttribute("data-glossary-ready", "");
    var tip = document.createElement("div");
    counter += 1;
    tip.id = "glossary-tip-" + counter;
    tip.className = "glossary-tooltip";
    tip.setAttribute("role", "tooltip");
    tip.textContent = link.getAttribute("data-glossary-def") || "";
    tip.hidden = true;
    document.body.appendChild(tip);
    if (!tip.textContent) fill(link, tip); // ready before the link is focused
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
    // Entry links the theme writes (a lesson's prerequisites): definition read on first use.
    var others = document.querySelectorAll(
      '.md-content a.course-prereq--term[href*="#"], .md-content a[data-glossary-entry][href*="#"]'
    );
    for (var j = 0; j < others.length; j++) setUp(others[j]);
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
