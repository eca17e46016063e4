// Render the formulas that pymdownx.arithmatex (generic mode) marks with class "arithmatex",
// using the self-hosted KaTeX. Runs on every page load and every instant navigation; a
// formula already rendered no longer holds its \( \) delimiters, so running twice is harmless.
document$.subscribe(function () {
  if (typeof renderMathInElement !== "function") return;
  document.querySelectorAll(".arithmatex").forEach(function (el) {
    renderMathInElement(el, {
      delimiters: [
        { left: "\\(", right: "\\)", display: false },
        { left: "\\[", right: "\\]", display: true },
      ],
      throwOnError: false,
    });
  });
});
