// Python for the lesson cells, off the main thread.
//
// A *module* worker (Pyodide 314 refuses classic workers). It is started by cells.js on the first
// Run, never at page load. It loads everything from the course site itself:
//   <root>/vendor/manifest.json          names the grader wheel and the download sizes
//   <root>/vendor/pyodide/pyodide.mjs    Pyodide core, from the pinned npm package
//   <root>/vendor/<grader wheel>         this repository's `grader` package (pure Python)
// and reports download progress while doing so.
//
// Messages in:  {type: "init", root, interrupt?: SharedArrayBuffer}
//               {type: "run", id, page, cell, code}
//               {type: "reset", page?}
// Messages out: {type: "progress", percent, label}
//               {type: "ready", seconds}
//               {type: "output", id, kind, text}   kind: stdout|stderr|error|result|svg
//               {type: "done", id, ok, run, seconds}
//               {type: "failed", message}            Python could not be loaded

let pyodide = null;
let runtime = null;
let loading = null;

// Count the bytes of every fetch (the wasm binary, the standard library, the lock file, the
// wheel) against the total the manifest announces. The count reads a clone of each response, so
// Pyodide gets the original one: streaming compilation and the browser's cache of compiled wasm
// code keep working.
function countingFetch(expectedBytes, report) {
  const realFetch = self.fetch.bind(self);
  let received = 0;
  return async (input, init) => {
    const response = await realFetch(input, init);
    if (!response.ok || !response.body) return response;
    const reader = response.clone().body.getReader();
    (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        received += value.byteLength;
        report(Math.min(received / expectedBytes, 1));
      }
    })().catch(() => {});
    return response;
  };
}

async function load(root, interrupt) {
  const t0 = performance.now();
  const marks = {};
  const mark = (name) => (marks[name] = Math.round(performance.now() - t0));
  const post = (percent, label) => self.postMessage({ type: "progress", percent, label });
  post(0, "Loading Python…");
  const indexURL = new URL("vendor/pyodide/", root).href;
  // Start parsing Pyodide's JavaScript while the manifest arrives.
  const pyodideModule = import(new URL("pyodide.mjs", indexURL).href);
  pyodideModule.catch(() => {}); // reported when awaited below
  const manifestResponse = await fetch(new URL("vendor/manifest.json", root));
  if (!manifestResponse.ok) {
    throw new Error(`vendor/manifest.json: HTTP ${manifestResponse.status} (run \`make vendor\`)`);
  }
  const manifest = await manifestResponse.json();
  const expected = manifest.cells_download_bytes || 13e6;
  // Downloading takes 0–60 %; then starting the interpreter, then the course's package.
  let downloaded = false;
  self.fetch = countingFetch(expected, (f) => {
    if (downloaded) return;
    if (f >= 1) {
      downloaded = true;
      mark("downloaded");
      post(60, "Starting Python…");
    } else {
      post(Math.round(f * 60), "Loading Python…");
    }
  });

  const wheelURL = new URL(`vendor/${manifest.grader_wheel}`, root);
  const wheel = fetch(wheelURL).then((r) => {
    if (!r.ok) throw new Error(`${manifest.grader_wheel}: HTTP ${r.status} (run \`make vendor\`)`);
    return r.arrayBuffer();
  });
  const { loadPyodide } = await pyodideModule;
  mark("imported");
  pyodide = await loadPyodide({ indexURL, env: { HOME: "/home/learner" } });
  mark("started");
  downloaded = true;
  post(90, "Loading the course's memory model…");
  if (interrupt) pyodide.setInterruptBuffer(new Int32Array(interrupt));
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(await wheel, "wheel", { extractDir: sitePackages });
  runtime = pyodide.pyimport("grader.cell_runtime");
  // Import the memory model now, so the first cell's time is the cell's own.
  pyodide.runPython("import grader.memory");
  mark("ready");
  post(100, "Python ready");
  self.postMessage({ type: "ready", seconds: (performance.now() - t0) / 1000, marks });
}

function run({ id, page, cell, code }) {
  const emit = (kind, text) => self.postMessage({ type: "output", id, kind, text });
  let summary;
  try {
    const result = runtime.run(page, cell, code, emit);
    summary = result.toJs({ dict_converter: Object.fromEntries });
    result.destroy();
  } catch (err) {
    // The runtime reports cell errors as output; reaching here means the runtime itself broke.
    emit("error", String(err && err.message ? err.message : err));
    summary = { ok: false, run: 0, seconds: 0 };
  }
  self.postMessage({ type: "done", id, ...summary });
}

self.onmessage = async (event) => {
  const msg = event.data;
  if (msg.type === "init") {
    loading = load(msg.root, msg.interrupt).catch((err) => {
      self.postMessage({ type: "failed", message: String(err && err.message ? err.message : err) });
      throw err;
    });
    return;
  }
  try {
    await loading;
  } catch {
    return; // "failed" was already reported
  }
  if (msg.type === "run") run(msg);
  else if (msg.type === "reset") runtime.reset(msg.page ?? null);
};
