/* Practice answers: fields of each exercise's kind, a Check button, feedback from the grader.
 *
 * Every exercise on a page has an empty <div class="exercise-answer" data-exercise-id=...> and its
 * public view in <div class="exercise-public" data-json=...> (a JSON <script> is read too; it does
 * not survive instant navigation, which re-runs inline scripts). This script fills the
 * answer div (number + unit, choices, matching selects, text, code) and a Check button, and shows
 * the grader's feedback under the question in an aria-live region.
 *
 * - The learner's token is entered once and kept in localStorage ("course:token").
 * - The grader is the service that serves this site: <site root>/api/. When it cannot be reached
 *   (a static deploy), the page says so and offers the answers as a submission file for
 *   `python -m grader grade FILE`; answers are kept as drafts in this browser meanwhile.
 * - Material's instant navigation swaps the page without reloading scripts: `init` runs on every
 *   `document$` emission and only touches answer divs it has not filled yet (idempotent).
 */
(function () {
  "use strict";

  var TOKEN_KEY = "course:token";
  var NAME_KEY = "course:practice:name";
  var DRAFT_PREFIX = "course:practice:draft:";
  var PROBE_TIMEOUT_MS = 4000;
  var BYTE_UNITS = ["B", "KB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "PiB"];
  var COUNT_UNITS = ["", "K", "M", "B", "T"];

  // The site root, from this script's own address (…/assets/javascripts/practice.js).
  var SCRIPT_SRC = (document.currentScript && document.currentScript.src) || "";
  var SITE_ROOT = SCRIPT_SRC
    ? SCRIPT_SRC.replace(/assets\/javascripts\/practice\.js(\?.*)?$/, "")
    : location.origin + "/";
  var API = SITE_ROOT + "api/";

  var probe = null; // one probe of the grader per page load: Promise<boolean>

  /* ---------- storage ---------- */

  function store(key, value) {
    try {
      if (value === null || value === undefined || value === "") localStorage.removeItem(key);
      else localStorage.setItem(key, value);
    } catch (e) { /* storage disabled: the page still works, it just forgets */ }
  }
  function load(key) {
    try { return localStorage.getItem(key) || ""; } catch (e) { return ""; }
  }
  function loadDraft(id) {
    try { return JSON.parse(load(DRAFT_PREFIX + id) || "null"); } catch (e) { return null; }
  }

  /* ---------- small DOM helpers (text only: never innerHTML with answers or feedback) ------- */

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === "text") node.textContent = attrs[name];
      else if (name === "className") node.className = attrs[name];
      else node.setAttribute(name, attrs[name]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function uuid() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  /* ---------- the grader ---------- */

  function fetchWithTimeout(url, options, ms) {
    var controller = new AbortController();
    var timer = setTimeout(function () { controller.abort(); }, ms);
    return fetch(url, Object.assign({ signal: controller.signal, cache: "no-store" }, options || {}))
      .finally(function () { clearTimeout(timer); });
  }

  function graderReachable(force) {
    if (!probe || force) {
      probe = fetchWithTimeout(API + "version", {}, PROBE_TIMEOUT_MS)
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) { return !!(data && Array.isArray(data.lessons)); })
        .catch(function () { return false; });
    }
    return probe;
  }

  function api(path, token, options) {
    var headers = Object.assign({ Accept: "application/json" }, (options && options.headers) || {});
    if (token) headers.Authorization = "Bearer " + token;
    return fetchWithTimeout(API + path, Object.assign({}, options, { headers: headers }), 60000)
      .then(function (r) {
        return r.text().then(function (text) {
          var body = null;
          try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
          return { status: r.status, ok: r.ok, body: body };
        });
      });
  }

  function problem(response) {
    var detail = response.body && response.body.detail;
    return typeof detail === "string" ? detail : "the grader answered HTTP " + response.status;
  }

  /* ---------- answer fields, one builder per kind ---------- */

  function numericField(view, id) {
    var input = el("input", {
      type: "text", inputmode: "decimal", autocomplete: "off", spellcheck: "false",
      className: "practice-number", id: id + "-value",
      placeholder: view.placeholder || "a number"
    });
    var label = el("label", { "for": id + "-value", text: "Your answer", className: "practice-label" });
    var units = view.unit === "bytes" ? BYTE_UNITS : view.unit === "count" ? COUNT_UNITS : null;
    var select = null;
    if (units) {
      select = el("select", { className: "practice-unit", "aria-label": "Unit", id: id + "-unit" });
      units.forEach(function (u) {
        var option = el("option", { value: u, text: u || "(none)" });
        if (u === (view.display_unit || (view.unit === "bytes" ? "GB" : ""))) option.selected = true;
        select.appendChild(option);
      });
    }
    var box = el("div", { className: "practice-numeric" }, [label, input, select]);
    return {
      node: box,
      focus: input,
      get: function () {
        var text = input.value.trim();
        if (!text) return null;
        // A unit typed with the number ("112 GB", "70B") wins over the unit menu.
        if (select && !/[A-Za-z]\s*$/.test(text) && select.value) return text + " " + select.value;
        return text;
      },
      set: function (value) {
        if (value === null || value === undefined) return;
        var text = String(value);
        var m = select && text.match(/^(.*?)\s*([A-Za-z]+)\s*$/);
        if (m && Array.prototype.some.call(select.options, function (o) { return o.value === m[2]; })) {
          input.value = m[1];
          select.value = m[2];
        } else {
          input.value = text;
        }
      }
    };
  }

  function choiceField(view, id, multiple) {
    var legend = el("legend", { text: multiple ? "Select every option that applies" : "Choose one" });
    var fieldset = el("fieldset", { className: "practice-choices" }, [legend]);
    var inputs = [];
    (view.choices || []).forEach(function (choice) {
      var input = el("input", {
        type: multiple ? "checkbox" : "radio", name: id + "-choice", value: choice.id,
        id: id + "-choice-" + choice.id
      });
      inputs.push(input);
      fieldset.appendChild(el("label", { "for": input.id, className: "practice-choice" }, [
        input,
        el("span", { className: "practice-choice-id", text: choice.id + ")" }),
        el("span", { text: " " + choice.text })
      ]));
    });
    return {
      node: fieldset,
      focus: inputs[0],
      get: function () {
        var chosen = inputs.filter(function (i) { return i.checked; }).map(function (i) { return i.value; });
        if (!chosen.length) return null;
        return multiple ? chosen : chosen[0];
      },
      set: function (value) {
        var chosen = Array.isArray(value) ? value : [value];
        inputs.forEach(function (i) { i.checked = chosen.indexOf(i.value) >= 0; });
      }
    };
  }

  function matchingField(view, id) {
    var table = el("div", { className: "practice-matching", role: "group", "aria-label": "Matching" });
    var selects = {};
    (view.left || []).forEach(function (left) {
      var select = el("select", { id: id + "-match-" + left.id, "data-left": left.id });
      select.appendChild(el("option", { value: "", text: "— choose —" }));
      (view.right || []).forEach(function (right) {
        select.appendChild(el("option", { value: right.id, text: right.text }));
      });
      selects[left.id] = select;
      table.appendChild(el("div", { className: "practice-match-row" }, [
        el("label", { "for": select.id, text: left.text }),
        select
      ]));
    });
    var ids = Object.keys(selects);
    return {
      node: table,
      focus: selects[ids[0]],
      get: function () {
        var answer = {};
        ids.forEach(function (k) { if (selects[k].value) answer[k] = selects[k].value; });
        return Object.keys(answer).length ? answer : null;
      },
      set: function (value) {
        if (!value || typeof value !== "object") return;
        ids.forEach(function (k) { if (value[k]) selects[k].value = value[k]; });
      }
    };
  }

  function textField(view, id, kind) {
    var multiline = kind === "reflection" || kind === "code";
    var input = el(multiline ? "textarea" : "input", {
      id: id + "-text", autocomplete: "off", spellcheck: kind === "code" ? "false" : "true",
      className: kind === "code" ? "practice-code" : "practice-text",
      placeholder: view.placeholder || ""
    });
    if (kind === "code") {
      input.value = view.starter || "";
      input.rows = Math.min(24, Math.max(8, (view.starter || "").split("\n").length + 4));
      input.setAttribute("wrap", "off");
      input.addEventListener("keydown", function (event) {
        // Tab indents in the code box; Escape then Tab leaves it (keyboard users are not trapped).
        if (event.key === "Tab" && !event.shiftKey && !input.dataset.escaped) {
          event.preventDefault();
          var s = input.selectionStart;
          input.setRangeText("    ", s, input.selectionEnd, "end");
          input.dispatchEvent(new Event("input"));
        }
        input.dataset.escaped = event.key === "Escape" ? "1" : "";
      });
    } else if (multiline) {
      input.rows = 3;
    } else {
      input.type = "text";
    }
    var text = kind === "code"
      ? "Your function" + (view.function ? " " + view.function + "()" : "") + " (Tab indents; Esc, Tab leaves)"
      : "Your answer";
    var label = el("label", { "for": input.id, text: text, className: "practice-label" });
    return {
      node: el("div", { className: "practice-textbox" }, [label, input]),
      focus: input,
      get: function () {
        // The untouched starter is not an answer (nothing to check, nothing to download).
        var text = input.value.trim();
        return text && text !== (view.starter || "").trim() ? input.value : null;
      },
      set: function (value) { if (typeof value === "string") input.value = value; }
    };
  }

  function buildField(view, id) {
    switch (view.kind) {
      case "numeric": return numericField(view, id);
      case "single_choice": return choiceField(view, id, false);
      case "multiple_select": return choiceField(view, id, true);
      case "matching": return matchingField(view, id);
      default: return textField(view, id, view.kind);
    }
  }

  /* ---------- feedback ---------- */

  function formatScore(score, max) {
    var round = function (x) { return Math.round(x * 100) / 100; };
    return round(score) + " / " + round(max) + " point" + (max === 1 ? "" : "s");
  }

  function showResult(item, test, note) {
    var box = item.feedback;
    box.textContent = "";
    var passed = test.status === "passed";
    box.className = "practice-feedback " + (passed ? "is-passed" : "is-failed");
    box.appendChild(el("p", { className: "practice-verdict" }, [
      el("strong", { text: passed ? "✓ Correct" : "✗ Not yet" }),
      el("span", { text: " · " + formatScore(test.score, test.max_score) + (note ? " · " + note : "") })
    ]));
    if (test.output) box.appendChild(inlineMarkdown(test.output, el("div", { className: "practice-output" })));
  }

  // Feedback is Markdown-ish text: render **bold** and `code` as elements, everything else as
  // text nodes (never HTML, whatever the text holds).
  function inlineMarkdown(text, into) {
    String(text).split(/(\*\*[^*\n]+\*\*|`[^`\n]+`)/).forEach(function (part) {
      if (/^\*\*[^*]+\*\*$/.test(part)) into.appendChild(el("strong", { text: part.slice(2, -2) }));
      else if (/^`[^`]+`$/.test(part)) into.appendChild(el("code", { text: part.slice(1, -1) }));
      else if (part) into.appendChild(document.createTextNode(part));
    });
    return into;
  }

  function showMessage(item, text, tone) {
    item.feedback.className = "practice-feedback is-" + (tone || "info");
    item.feedback.textContent = "";
    item.feedback.appendChild(el("p", { text: text }));
  }

  function showPast(item, past) {
    var when = new Date(past.last_submission_at);
    var note = "last checked " + when.toLocaleString() + " · " + past.attempts + " attempt" +
      (past.attempts === 1 ? "" : "s") + ", best " + formatScore(past.best_score, past.max_score);
    showResult(item, {
      status: past.last_status, score: past.last_score, max_score: past.max_score,
      output: past.last_output
    }, note);
    item.feedback.classList.add("is-past");
  }

  /* ---------- the panel: token, grader status, submission file ---------- */

  function lessonOf(item) { return parseInt(item.root.getAttribute("data-lesson") || item.view.lesson, 10); }

  function submissionFile(items, lesson) {
    var answers = {};
    items.forEach(function (item) {
      if (lessonOf(item) !== lesson) return;
      var value = item.field.get();
      if (value !== null) answers[item.id] = value;
    });
    return { learner: load(NAME_KEY) || "your name here", lesson: lesson, answers: answers };
  }

  function fileName(lesson) { return "lesson-" + String(lesson).padStart(2, "0") + "-answers.json"; }

  function download(items, lesson) {
    var data = submissionFile(items, lesson);
    var blob = new Blob([JSON.stringify(data, null, 2) + "\n"], { type: "application/json" });
    var link = el("a", {
      href: URL.createObjectURL(blob),
      download: fileName(lesson)
    });
    document.body.appendChild(link);
    link.click();
    setTimeout(function () { URL.revokeObjectURL(link.href); link.remove(); }, 1000);
    return data;
  }

  function buildPanel(items) {
    var status = el("p", { className: "practice-status", role: "status", "aria-live": "polite" });
    var tokenInput = el("input", {
      type: "password", id: "practice-token", autocomplete: "off", spellcheck: "false",
      placeholder: "crs_…", className: "practice-token"
    });
    var save = el("button", { type: "submit", className: "md-button md-button--primary", text: "Use this token" });
    var form = el("form", { className: "practice-token-form" }, [
      el("label", { "for": "practice-token", text: "Your grader token (from your instructor)" }),
      tokenInput, save
    ]);
    var change = el("button", { type: "button", className: "md-button practice-change", text: "Change token" });
    var retry = el("button", { type: "button", className: "md-button practice-retry", text: "Try the grader again" });
    var nameInput = el("input", {
      type: "text", id: "practice-name", autocomplete: "name", value: load(NAME_KEY),
      className: "practice-name", placeholder: "your name"
    });
    var lessons = [];
    items.forEach(function (item) {
      var n = lessonOf(item);
      if (!isNaN(n) && lessons.indexOf(n) < 0) lessons.push(n);
    });
    var downloads = lessons.map(function (n) {
      var button = el("button", {
        type: "button", className: "md-button practice-download",
        text: "Download my answers (lesson " + n + ")"
      });
      button.addEventListener("click", function () { download(items, n); });
      return button;
    });
    var offline = el("div", { className: "practice-offline", hidden: "" }, [
      el("p", { text: "To have them graded, download them as a submission file and grade it with " +
        "the course's command line:" }),
      el("pre", {}, [el("code", { text: "python -m grader grade " + fileName(lessons[0] || 0) })]),
      el("label", { "for": "practice-name", text: "Name in the file" }), nameInput
    ].concat(downloads).concat([retry]));
    nameInput.addEventListener("input", function () { store(NAME_KEY, nameInput.value.trim()); });

    var panel = el("section", { className: "practice-panel", "aria-label": "Grader" }, [
      el("p", { className: "practice-panel-title", text: "Practice answers" }),
      status, form, change, offline
    ]);
    return {
      node: panel, status: status, form: form, tokenInput: tokenInput, change: change,
      offline: offline, retry: retry
    };
  }

  /* ---------- one page ---------- */

  function setUp(container) {
    var answerDivs = Array.prototype.filter.call(
      container.querySelectorAll(".exercise-answer[data-exercise-id]"),
      function (div) { return !div.hasAttribute("data-practice-ready"); }
    );
    if (!answerDivs.length) return;

    var items = [];
    answerDivs.forEach(function (div) {
      var root = div.closest(".exercise");
      // data-json: a JSON <script> does not survive Material's instant navigation (grader.course)
      var script = root && root.querySelector(".exercise-public");
      var view;
      try { view = JSON.parse(script ? (script.getAttribute("data-json") || script.textContent) : "null"); } catch (e) { view = null; }
      if (!view || !view.kind) return;
      div.setAttribute("data-practice-ready", "");
      var id = div.getAttribute("data-exercise-id");
      var field = buildField(view, id);
      var check = el("button", { type: "submit", className: "md-button md-button--primary practice-check", text: "Check" });
      var feedback = el("div", { className: "practice-feedback", role: "status", "aria-live": "polite", id: id + "-feedback" });
      var form = el("form", { className: "practice-form", "aria-describedby": feedback.id }, [
        field.node, el("div", { className: "practice-actions" }, [check])
      ]);
      div.appendChild(form);
      div.appendChild(feedback);
      root.classList.add("practice-ready");
      var item = { id: id, root: root, view: view, field: field, check: check, feedback: feedback };
      var draft = loadDraft(id);
      if (draft !== null) field.set(draft);
      form.addEventListener("input", function () { store(DRAFT_PREFIX + id, JSON.stringify(field.get())); });
      form.addEventListener("change", function () { store(DRAFT_PREFIX + id, JSON.stringify(field.get())); });
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        submit(item);
      });
      items.push(item);
    });
    if (!items.length) return;

    var panel = buildPanel(items);
    items[0].root.parentNode.insertBefore(panel.node, items[0].root);
    var state = { online: false, token: load(TOKEN_KEY), learner: "" };

    function showOffline() {
      state.online = false;
      panel.form.hidden = true;
      panel.change.hidden = true;
      panel.offline.hidden = false;
      panel.status.textContent = "No grader is reachable from this page (this copy of the course " +
        "is static). Your answers are kept in this browser.";
    }

    function askToken(message) {
      panel.form.hidden = false;
      panel.change.hidden = true;
      panel.offline.hidden = true;
      panel.status.textContent = message;
    }

    function signIn(token) {
      panel.status.textContent = "Checking your token…";
      return api("me", token).then(function (r) {
        if (r.status === 401 || r.status === 403) {
          askToken("That token was not accepted (" + problem(r) + "). Check it and enter it again.");
          return;
        }
        if (!r.ok) { askToken("The grader could not check your token: " + problem(r)); return; }
        state.token = token;
        state.learner = r.body.learner;
        store(TOKEN_KEY, token);
        store(NAME_KEY, r.body.learner);
        panel.form.hidden = true;
        panel.change.hidden = false;
        panel.offline.hidden = true;
        panel.status.textContent = "Signed in as " + r.body.learner + ". Each Check is graded " +
          "and saved; your past results are shown under the questions.";
        return loadPast();
      }).catch(function () { showOffline(); });
    }

    function loadPast() {
      var lessons = [];
      items.forEach(function (item) { var n = lessonOf(item); if (lessons.indexOf(n) < 0) lessons.push(n); });
      return Promise.all(lessons.map(function (n) {
        return api("me/results?lesson=" + n, state.token).then(function (r) {
          if (!r.ok || !r.body) return;
          r.body.results.forEach(function (past) {
            items.forEach(function (item) {
              if (item.id !== past.question) return;
              if (loadDraft(item.id) === null && past.last_answer !== null) item.field.set(past.last_answer);
              showPast(item, past);
            });
          });
        });
      }));
    }

    function submit(item) {
      var answer = item.field.get();
      if (answer === null) {
        showMessage(item, "Enter an answer first.", "info");
        if (item.field.focus) item.field.focus.focus();
        return;
      }
      if (!state.online) {
        showMessage(item, "No grader is reachable, so this answer cannot be checked here. It is " +
          "kept in this browser: use “Download my answers” above to grade it from the command line.", "info");
        return;
      }
      if (!state.token) {
        showMessage(item, "Enter your grader token above first (once: this browser remembers it).", "info");
        panel.tokenInput.focus();
        return;
      }
      var answers = {};
      answers[item.id] = answer;
      // One idempotency key per answer until the grader has answered for it: automatic retries
      // and a Check pressed again after a network error reuse it, so nothing counts twice.
      var sent = JSON.stringify(answers);
      if (!item.pending || item.pending.sent !== sent) item.pending = { sent: sent, key: uuid() };
      var key = item.pending.key;
      item.check.disabled = true;
      showMessage(item, "Checking…", "info");
      var attempt = function (retriesLeft) {
        return api("lessons/" + lessonOf(item) + "/submissions", state.token, {
          method: "POST",
          headers: { "Content-Type": "application/json", "Idempotency-Key": key },
          body: JSON.stringify({ answers: answers })
        }).catch(function (error) {
          if (retriesLeft > 0) {
            return new Promise(function (resolve) { setTimeout(resolve, 1000); })
              .then(function () { return attempt(retriesLeft - 1); });
          }
          throw error;
        });
      };
      attempt(2).then(function (r) {
        if (r.status !== 503) item.pending = null; // answered: the next Check is a new attempt
        if (r.ok && r.body && r.body.result) {
          var test = (r.body.result.tests || []).filter(function (t) { return t.name === item.id; })[0];
          if (test) showResult(item, test, "saved");
          else showMessage(item, r.body.result.output || "The grader returned no result for this question.", "error");
        } else if (r.status === 401) {
          showMessage(item, "Your token is no longer accepted: " + problem(r), "error");
          askToken("Enter your grader token again.");
        } else {
          showMessage(item, problem(r), r.status === 429 || r.status === 409 ? "info" : "error");
        }
      }).catch(function () {
        showMessage(item, "The grader did not answer (network error). Your answer is kept; try Check again.", "error");
      }).finally(function () { item.check.disabled = false; });
    }

    panel.form.addEventListener("submit", function (event) {
      event.preventDefault();
      var token = panel.tokenInput.value.trim();
      if (!token) { askToken("Paste the token your instructor gave you."); return; }
      panel.tokenInput.value = "";
      signIn(token);
    });
    panel.change.addEventListener("click", function () {
      store(TOKEN_KEY, "");
      state.token = "";
      askToken("Enter the token to use from now on.");
      panel.tokenInput.focus();
    });
    panel.retry.addEventListener("click", function () { start(true); });

    function start(force) {
      panel.status.textContent = "Looking for the grader…";
      graderReachable(force).then(function (reachable) {
        if (!reachable) { showOffline(); return; }
        state.online = true;
        if (state.token) signIn(state.token);
        else askToken("Enter your token once to check your answers; this browser remembers it.");
      });
    }
    start(false);
  }

  // <p class="practice-grader-status"></p> on a page (the feature page) shows whether the
  // grader answers here, and which lessons it grades.
  function showGraderStatus(container) {
    Array.prototype.forEach.call(
      container.querySelectorAll(".practice-grader-status:not([data-practice-ready])"),
      function (node) {
        node.setAttribute("data-practice-ready", "");
        node.setAttribute("role", "status");
        node.textContent = "Looking for the grader…";
        fetchWithTimeout(API + "version", {}, PROBE_TIMEOUT_MS)
          .then(function (r) { return r.ok ? r.json() : null; })
          .catch(function () { return null; })
          .then(function (data) {
            node.textContent = data && Array.isArray(data.lessons)
              ? "The grader answers at " + API + " and grades lessons " + data.lessons.join(", ") + "."
              : "No grader answers at " + API + ": this copy of the course is static, so " +
                "practice answers are offered as a submission file instead.";
          });
      }
    );
  }

  function init() {
    showGraderStatus(document);
    setUp(document);
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
