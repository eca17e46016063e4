// GPU lab boxes (`::: lab <id>`, grader/course/labs.py): point "Download the notebook" at the
// copy this site serves (vendor/labs/<id>.ipynb), so the download needs nothing from outside.
// Without JavaScript the link keeps its href: the notebook in the course repository.
// The site root is resolved from this script's own address (assets/javascripts/labs.js), which
// holds at every page depth and under instant navigation.
(() => {
  const script = document.currentScript;
  const root = new URL("../../", script ? script.src : window.location.href);
  const point = () => {
    for (const link of document.querySelectorAll("a.course-lab-download[data-lab-notebook]")) {
      link.href = new URL(`vendor/labs/${link.dataset.labNotebook}`, root).href;
    }
  };
  if (typeof document$ !== "undefined") {
    document$.subscribe(point); // Material: runs on the first page and after each navigation
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", point);
  } else {
    point();
  }
})();
