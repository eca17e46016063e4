// Python cells in lesson pages: turns every `<div class="pycell">` (written by the `pycell`
// fence, grader/course/cells.py) into an editor with Run, Stop and Reset.
//
// Nothing heavy loads with the page: Python (Pyodide, ~12 MB) is fetched by a module worker on
// the first Run (session.js, worker.js). Edits are kept in localStorage under
// `course:cell:<page>:<cell-id>` until Reset. Safe to call on every instant navigation.

import { Editor } from "./editor.js";
import { Session } from "./session.js";

const ROOT = new URL("../../../", import.meta.url); // assets/javascripts/cells/ -> site root
const MAX_OUTPUT_CHARS = 100_000;

const session = new Session(ROOT, new URL("worker.js", import.meta.url));

/** The page's path below the site root ("stage-4/lesson-08/"), used in storage keys. */
function pageKey() {
  const path = decodeURI(location.pathname);
  const rootPath = decodeURI(ROOT.pathname);
  const key = path.startsWith(rootPath) ? path.slice(rootPath.length) : path;
  return key.replace(/index\.html$/, "") || "index";
}

const storage = {
  get(key) {
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      if (value === null) localStorage.removeItem(key);
      else localStorage.setItem(key, value);
    } catch {
      /* storage full or disabled: the edit stays in the page */
    }
  },
};

function button(label, cls, title, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = `pycell-button ${cls}`;
  b.textContent = label;
  b.title = title;
  b.addEventListener("click", onClick);
  return b;
}

function svgImage(svg) {
  const figure = document.createElement("figure");
  figure.className = "pycell-figure";
  const img = document.createElement("img");
  // As an <img>, the SVG is a picture: no script in it can run, no style leaks out.
  img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg);
  // Its alternative text is the drawing's own <title> and <desc> (parsed, never rendered).
  const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
  const text = (tag) => doc.querySelector(`svg > ${tag}`)?.textContent.trim() || "";
  img.alt = [text("title"), text("desc")].filter(Boolean).join(". ") || "Figure drawn by the cell";
  figure.append(img);
  return figure;
}

class Cell {
  constructor(el, page) {
    this.el = el;
    this.page = page;
    this.id = el.dataset.cellId;
    this.key = `course:cell:${page}:${this.id}`;
    const sourceEl = el.querySelector(".pycell-source");
    this.original = sourceEl.textContent.replace(/\n$/, "");
    const saved = storage.get(this.key);
    const text = saved !== null ? saved : this.original;

    const bar = document.createElement("div");
    bar.className = "pycell-toolbar";
    this.runButton = button("▶ Run", "pycell-run", "Run this cell (Shift+Enter)", () => this.run());
    this.stopButton = button("■ Stop", "pycell-stop", "Stop this cell", () => this.stop());
    this.resetButton = button(
      "↺ Reset",
      "pycell-reset",
      "Restore the original code (Ctrl+Z in the editor undoes this)",
      () => this.reset(),
    );
    this.stopButton.disabled = true;
    this.status = document.createElement("span");
    this.status.className = "pycell-status";
    this.status.setAttribute("role", "status");
    this.bar = document.createElement("progress");
    this.bar.className = "pycell-progress";
    this.bar.max = 100;
    this.bar.hidden = true;
    bar.append(this.runButton, this.stopButton, this.resetButton, this.status, this.bar);

    this.outputEl = document.createElement("div");
    this.outputEl.className = "pycell-output";
    this.outputEl.setAttribute("aria-live", "polite");
    this.outputEl.hidden = true;

    const editorHost = document.createElement("div");
    sourceEl.replaceWith(editorHost);
    this.editor = new Editor(editorHost, text, {
      label: `Python cell ${this.id}`,
      onRun: () => this.run(),
      onChange: (value) => this.changed(value),
    });
    editorHost.replaceWith(this.editor.root);
    el.append(bar, this.outputEl);
    this.markEdited(text !== this.original);
    this.setStatus("Shift+Enter runs the cell");
  }

  markEdited(edited) {
    this.el.classList.toggle("pycell--edited", edited);
    this.resetButton.disabled = !edited;
  }

  changed(value) {
    // Saved on every keystroke (a few kB at most), so leaving the page never loses an edit.
    this.markEdited(value !== this.original);
    storage.set(this.key, value === this.original ? null : value);
  }

  reset() {
    this.editor.replaceAll(this.original);
    storage.set(this.key, null);
    this.markEdited(false);
    this.clearOutput();
    this.setStatus("Original code restored (Ctrl+Z in the editor undoes it)");
  }

  stop() {
    this.stopRequested = true;
    session.stop(this);
  }

  run() {
    this.stopRequested = false;
    const code = this.editor.value;
    storage.set(this.key, code === this.original ? null : code);
    this.clearOutput();
    this.runButton.disabled = true;
    this.stopButton.disabled = false;
    this.el.classList.add("pycell--busy");
    session.run(this, this.page, code);
  }

  // --- called by the session ------------------------------------------------------------------

  waiting(info) {
    if (info.queued) {
      this.setStatus(`Waiting for the cell before it (${info.queued} in line)…`);
      this.bar.hidden = true;
    } else {
      this.setStatus(`${info.label || "Loading Python…"} ${info.percent || 0}%`);
      this.bar.hidden = false;
      this.bar.value = info.percent || 0;
    }
  }

  started() {
    this.bar.hidden = true;
    this.setStatus("Running…");
  }

  output(kind, text) {
    this.outputEl.hidden = false;
    if (kind === "svg") {
      this.outputEl.append(svgImage(text));
      this.last = null;
      return;
    }
    if (this.shown >= MAX_OUTPUT_CHARS) {
      this.dropped += text.length;
      return;
    }
    if (this.shown + text.length > MAX_OUTPUT_CHARS) {
      this.dropped += this.shown + text.length - MAX_OUTPUT_CHARS;
      text = text.slice(0, MAX_OUTPUT_CHARS - this.shown);
    }
    this.shown += text.length;
    const cls = `pycell-${kind}`;
    if (!this.last || this.last.className !== cls) {
      this.last = document.createElement("pre");
      this.last.className = cls;
      this.outputEl.append(this.last);
    }
    this.last.append(text);
  }

  finished({ ok, run, seconds }) {
    this.idle();
    const ms = seconds * 1000;
    const took = ms < 1 ? "<1 ms" : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
    const note = this.dropped ? ` · output cut (${this.dropped.toLocaleString()} characters not shown)` : "";
    if (!ok && this.stopRequested) {
      // Stopped by KeyboardInterrupt (cross-origin isolated pages): Python kept running.
      this.setStatus("Stopped · the namespace is kept");
    } else {
      this.setStatus(`${ok ? "Ran" : "Error"} in ${took} · run ${run} in this page's namespace${note}`);
    }
    this.el.classList.toggle("pycell--error", !ok);
  }

  stopped(restarted) {
    this.idle();
    if (restarted) {
      this.output("notice", "Stopped. Python was restarted: the variables of earlier cells are gone; run them again.\n");
      this.setStatus("Stopped · Python restarted");
    } else {
      this.setStatus("Stopped before it ran");
    }
  }

  failed(message) {
    this.idle();
    this.output("error", message + "\n");
    this.setStatus("Python is not running");
  }

  // --------------------------------------------------------------------------------------------

  idle() {
    this.runButton.disabled = false;
    this.stopButton.disabled = true;
    this.bar.hidden = true;
    this.el.classList.remove("pycell--busy");
  }

  clearOutput() {
    this.outputEl.replaceChildren();
    this.outputEl.hidden = true;
    this.el.classList.remove("pycell--error");
    this.last = null;
    this.shown = 0;
    this.dropped = 0;
  }

  setStatus(text) {
    this.status.textContent = text;
  }
}

function addNamespaceNote(first) {
  const note = document.createElement("p");
  note.className = "pycell-note";
  note.textContent =
    "The Python cells on this page share one namespace: a cell sees what the cells you ran " +
    "before it defined, in the order you ran them. Python (about 12 MB) loads on your first Run " +
    "and runs in this browser, offline. Your edits stay in this browser until Reset. " +
    (self.crossOriginIsolated
      ? "Stop interrupts a cell and keeps the namespace."
      : "Stop restarts Python, which empties the namespace.");
  first.before(note);
}

function init() {
  const cells = [...document.querySelectorAll(".pycell:not([data-cell-ready])")];
  if (!cells.length) return;
  const page = pageKey();
  if (!document.querySelector(".pycell-note")) addNamespaceNote(cells[0]);
  for (const el of cells) {
    el.dataset.cellReady = "true";
    new Cell(el, page);
  }
}

if (typeof document$ !== "undefined") {
  document$.subscribe(init); // Material's instant navigation: run on every page
} else if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", init);
} else {
  init();
}
