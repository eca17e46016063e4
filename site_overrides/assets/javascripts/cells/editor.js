// A small code editor for a cell: a textarea with a line-number gutter, over a <pre> that shows
// the same text with Python colours (highlight.js). No CDN, no library.
//
// Keys: Shift+Enter or Ctrl/Cmd+Enter runs the cell; Tab and Shift+Tab indent and dedent;
// Enter keeps the indentation (one level more after a line ending in ":"); Escape, then Tab,
// leaves the editor (so Tab never traps keyboard users).

import { highlight } from "./highlight.js";

const INDENT = "    ";

export class Editor {
  /**
   * @param {HTMLElement} host  element the editor is built into
   * @param {string} text       initial source
   * @param {{label: string, onRun: () => void, onChange: (text: string) => void}} options
   */
  constructor(host, text, { label, onRun, onChange }) {
    this.onRun = onRun;
    this.onChange = onChange;
    this.escaped = false;

    this.root = document.createElement("div");
    this.root.className = "pycell-editor";
    this.gutter = document.createElement("pre");
    this.gutter.className = "pycell-gutter";
    this.gutter.setAttribute("aria-hidden", "true");
    this.textarea = document.createElement("textarea");
    this.textarea.className = "pycell-input";
    this.textarea.setAttribute("aria-label", label);
    for (const [k, v] of Object.entries({
      spellcheck: "false",
      autocapitalize: "off",
      autocomplete: "off",
      autocorrect: "off",
      wrap: "off",
    })) {
      this.textarea.setAttribute(k, v);
    }
    this.textarea.value = text;
    // The coloured copy sits exactly behind the textarea, whose own text is transparent.
    this.colours = document.createElement("pre");
    this.colours.className = "pycell-colours";
    this.colours.setAttribute("aria-hidden", "true");
    const area = document.createElement("div");
    area.className = "pycell-area";
    area.append(this.colours, this.textarea);
    this.root.append(this.gutter, area);
    host.append(this.root);

    this.textarea.addEventListener("input", () => {
      this.layout();
      this.onChange(this.textarea.value);
    });
    this.textarea.addEventListener("scroll", () => {
      this.colours.scrollLeft = this.textarea.scrollLeft;
    });
    this.textarea.addEventListener("keydown", (e) => this.keydown(e));
    this.layout();
  }

  get value() {
    return this.textarea.value;
  }

  /** Replace the whole text as one undoable edit (Ctrl+Z brings the old text back). */
  replaceAll(text) {
    this.textarea.focus();
    this.textarea.select();
    if (!document.execCommand("insertText", false, text)) {
      this.textarea.value = text;
      this.textarea.dispatchEvent(new Event("input"));
    }
    this.textarea.setSelectionRange(0, 0);
    this.textarea.scrollLeft = 0;
  }

  /** Colours, line numbers and height follow the text: the editor never scrolls vertically. */
  layout() {
    // A trailing space keeps a final empty line as tall in the <pre> as in the textarea.
    this.colours.innerHTML = highlight(this.textarea.value) + " ";
    this.colours.scrollLeft = this.textarea.scrollLeft;
    const lines = this.textarea.value.split("\n").length;
    if (lines !== this.lines) {
      this.lines = lines;
      this.gutter.textContent = Array.from({ length: lines }, (_, i) => i + 1).join("\n");
      this.textarea.rows = Math.max(lines, 2);
    }
  }

  insert(text) {
    // execCommand keeps the browser's undo history; setRangeText is the fallback.
    if (!document.execCommand("insertText", false, text)) {
      const ta = this.textarea;
      ta.setRangeText(text, ta.selectionStart, ta.selectionEnd, "end");
      ta.dispatchEvent(new Event("input"));
    }
  }

  keydown(e) {
    const ta = this.textarea;
    if (e.key === "Enter" && (e.shiftKey || e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      this.onRun();
      return;
    }
    if (e.key === "Escape") {
      this.escaped = true;
      return;
    }
    if (e.key === "Tab") {
      if (this.escaped || e.altKey || e.ctrlKey || e.metaKey) return; // let focus move on
      e.preventDefault();
      this.indent(e.shiftKey ? -1 : 1);
      return;
    }
    this.escaped = false;
    if (e.key === "Enter" && !e.altKey) {
      e.preventDefault();
      const before = ta.value.slice(0, ta.selectionStart);
      const line = before.slice(before.lastIndexOf("\n") + 1);
      let indent = line.match(/^[ \t]*/)[0];
      if (/:\s*(#.*)?$/.test(line)) indent += INDENT;
      this.insert("\n" + indent);
    }
  }

  /** Indent (+1) or dedent (-1) the selected lines; with no selection, Tab inserts spaces. */
  indent(direction) {
    const ta = this.textarea;
    const { selectionStart: start, selectionEnd: end, value } = ta;
    if (direction > 0 && start === end) {
      this.insert(INDENT);
      return;
    }
    const lineStart = value.lastIndexOf("\n", start - 1) + 1;
    const lineEnd = end > start && value[end - 1] === "\n" ? end - 1 : end;
    const block = value.slice(lineStart, lineEnd);
    const changed = block
      .split("\n")
      .map((l) => (direction > 0 ? INDENT + l : l.replace(/^( {1,4}|\t)/, "")))
      .join("\n");
    ta.setSelectionRange(lineStart, lineEnd);
    this.insert(changed);
    ta.setSelectionRange(lineStart, lineStart + changed.length);
  }
}
