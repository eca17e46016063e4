// Remembered checkboxes: every warm-up question, practice question and rep of a lesson has an
// <input class="course-check" data-item-id="..."> (rendered by grader.course). Its state lives in
// localStorage under "course:progress:<item-id>" ("1" = done), so it survives a reload, instant
// navigation and closing the browser. Lessons show "N of M done"; the progress page
// (::: course-progress) shows every lesson, from a JSON list emitted at build time (data-lessons), and exports
// and imports the learner's ticks as a file. Initialised through Material's document$, on every
// page load and instant navigation; running twice on the same page changes nothing.
(function () {
  "use strict";

  var PREFIX = "course:progress:";
  var FORMAT = "course-progress";
  var VERSION = 1;

  function store() {
    try {
      return window.localStorage;
    } catch (e) {
      return null; // storage disabled: checkboxes still work, they are just not remembered
    }
  }

  function isDone(id) {
    var s = store();
    return !!s && s.getItem(PREFIX + id) === "1";
  }

  function setDone(id, done) {
    var s = store();
    if (!s) return;
    if (done) s.setItem(PREFIX + id, "1");
    else s.removeItem(PREFIX + id);
  }

  function storedIds() {
    var s = store();
    var ids = [];
    if (!s) return ids;
    for (var i = 0; i < s.length; i++) {
      var key = s.key(i);
      if (key && key.indexOf(PREFIX) === 0 && s.getItem(key) === "1") ids.push(key.slice(PREFIX.length));
    }
    return ids;
  }

  function countText(done, total) {
    return done + " of " + total + " done";
  }

  // --- lesson pages and any page with checkboxes --------------------------------------------

  function boxes(root) {
    return Array.prototype.slice.call(root.querySelectorAll("input.course-check[data-item-id]"));
  }

  function showItem(box) {
    var item = box.closest(".course-item");
    if (item) item.classList.toggle("is-done", box.checked);
  }

  function refreshLesson() {
    var lesson = document.querySelector(".course-lesson");
    if (!lesson) return;
    var all = boxes(lesson);
    var done = all.filter(function (b) { return b.checked; }).length;
    lesson.querySelectorAll(".course-progress").forEach(function (el) {
      el.textContent = "Progress: " + countText(done, all.length);
      el.dataset.done = String(done);
      el.dataset.total = String(all.length);
    });
  }

  function bindBoxes() {
    boxes(document).forEach(function (box) {
      box.checked = isDone(box.dataset.itemId);
      showItem(box);
      if (box.dataset.courseBound) return;
      box.dataset.courseBound = "1";
      box.addEventListener("change", function () {
        setDone(box.dataset.itemId, box.checked);
        showItem(box);
        refreshLesson();
      });
    });
    refreshLesson();
  }

  // --- the progress page ----------------------------------------------------------------------

  function lessonIndex() {
    var el = document.querySelector(".course-progress-page[data-lessons]");
    if (!el) return null;
    try {
      return JSON.parse(el.getAttribute("data-lessons")).lessons || [];
    } catch (e) {
      return [];
    }
  }

  function refreshProgressPage() {
    var index = lessonIndex();
    if (!index) return;
    index.forEach(function (lesson) {
      var done = lesson.items.filter(isDone).length;
      document
        .querySelectorAll('.course-progress-table .course-progress[data-lesson="' + lesson.lesson + '"]')
        .forEach(function (el) {
          el.textContent = countText(done, lesson.items.length);
          el.dataset.done = String(done);
          el.dataset.total = String(lesson.items.length);
        });
    });
  }

  function status(message, isError) {
    var el = document.querySelector(".course-import-status");
    if (!el) return;
    el.textContent = message;
    el.classList.toggle("is-error", !!isError);
  }

  // The exported file names every known item (done or not) and every other stored tick.
  function exportData() {
    var items = {};
    (lessonIndex() || []).forEach(function (lesson) {
      lesson.items.forEach(function (id) { items[id] = isDone(id); });
    });
    storedIds().forEach(function (id) { items[id] = true; });
    return { format: FORMAT, version: VERSION, exported: new Date().toISOString(), items: items };
  }

  function download() {
    var payload = exportData();
    var data = JSON.stringify(payload, null, 2);
    var blob = new Blob([data], { type: "application/json" });
    var url = URL.createObjectURL(blob);
    var a = document.createElement("a");
    a.href = url;
    a.download = "course-progress-" + new Date().toISOString().slice(0, 10) + ".json";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
    var ids = Object.keys(payload.items);
    var done = ids.filter(function (id) { return payload.items[id]; }).length;
    status("Exported " + ids.length + " items, " + done + " done, to " + a.download + ".", false);
  }

  // Check the whole file before changing anything: a bad file changes no tick.
  function parseImport(text) {
    var data;
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw new Error("it is not JSON (" + e.message + ")");
    }
    if (!data || data.format !== FORMAT) throw new Error('it is not a course progress file (no "format": "' + FORMAT + '")');
    if (data.version !== VERSION) throw new Error("its version " + data.version + " is not " + VERSION);
    if (!data.items || typeof data.items !== "object" || Array.isArray(data.items)) {
      throw new Error('its "items" is not a mapping of item id to true/false');
    }
    Object.keys(data.items).forEach(function (id) {
      if (!/^[a-z0-9][a-z0-9-]*$/.test(id)) throw new Error("item id " + JSON.stringify(id) + " is not valid");
      if (typeof data.items[id] !== "boolean") throw new Error("item " + id + " is not true or false");
    });
    return data.items;
  }

  function importFile(input) {
    var file = input.files && input.files[0];
    if (!file) return;
    var reader = new FileReader();
    reader.onload = function () {
      try {
        var items = parseImport(String(reader.result));
        var ids = Object.keys(items);
        ids.forEach(function (id) { setDone(id, items[id]); });
        var ticked = ids.filter(function (id) { return items[id]; }).length;
        status("Imported " + file.name + ": " + ids.length + " items, " + ticked + " done.", false);
        bindBoxes();
        refreshProgressPage();
      } catch (e) {
        status("Could not import " + file.name + ": " + e.message + ". Nothing was changed.", true);
      }
      input.value = "";
    };
    reader.onerror = function () {
      status("Could not read " + file.name + ". Nothing was changed.", true);
      input.value = "";
    };
    reader.readAsText(file);
  }

  function bindProgressPage() {
    var page = document.querySelector(".course-progress-page");
    if (!page) return;
    refreshProgressPage();
    if (page.dataset.courseBound) return;
    page.dataset.courseBound = "1";
    var exportButton = page.querySelector(".course-export");
    if (exportButton) exportButton.addEventListener("click", download);
    var input = page.querySelector("input.course-import");
    if (input) input.addEventListener("change", function () { importFile(input); });
  }

  function init() {
    bindBoxes();
    bindProgressPage();
  }

  // Another tab changed a tick: show it here too.
  window.addEventListener("storage", function (event) {
    if (event.key === null || event.key.indexOf(PREFIX) === 0) init();
  });

  if (typeof document$ !== "undefined") document$.subscribe(init);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
