// Python syntax colouring for the cell editor: source text in, HTML out.
//
// Deliberately small: comments, strings (with prefixes and triple quotes), numbers, keywords,
// built-in names, and the name after `def`/`class`. The editor shows it in a <pre> behind a
// transparent textarea, so the output must contain exactly the source's characters.

const KEYWORDS = new Set(
  ("False None True and as assert async await break class continue def del elif else except " +
    "finally for from global if import in is lambda nonlocal not or pass raise return try while " +
    "with yield match case").split(" "),
);
const BUILTINS = new Set(
  ("abs all any bool dict display enumerate filter float format int isinstance len list map max " +
    "min print range repr round set sorted str sum tuple type zip").split(" "),
);

const TOKEN = new RegExp(
  [
    String.raw`(?<comment>#[^\n]*)`,
    String.raw`(?<string>(?:[rRbBuUfF]{1,2})?(?:"""[\s\S]*?(?:"""|$(?![\s\S]))|'''[\s\S]*?(?:'''|$(?![\s\S]))|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?))`,
    String.raw`(?<number>\b(?:0[xXoObB][\da-fA-F_]+|\d[\d_]*\.?[\d_]*(?:[eE][+-]?\d+)?j?|\.\d[\d_]*(?:[eE][+-]?\d+)?)\b)`,
    String.raw`(?<name>[A-Za-z_]\w*)`,
  ].join("|"),
  "g",
);

const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** HTML for `source` with token spans; its text content is `source` unchanged. */
export function highlight(source) {
  let html = "";
  let last = 0;
  let afterDef = false;
  for (const m of source.matchAll(TOKEN)) {
    html += escape(source.slice(last, m.index));
    last = m.index + m[0].length;
    const { comment, string, number, name } = m.groups;
    let cls = null;
    if (comment !== undefined) cls = "c";
    else if (string !== undefined) cls = "s";
    else if (number !== undefined) cls = "m";
    else if (name !== undefined) {
      if (afterDef) cls = "nf";
      else if (KEYWORDS.has(name)) cls = "k";
      else if (BUILTINS.has(name)) cls = "nb";
    }
    afterDef = name === "def" || name === "class";
    html += cls ? `<span class="${cls}">${escape(m[0])}</span>` : escape(m[0]);
  }
  return html + escape(source.slice(last));
}
