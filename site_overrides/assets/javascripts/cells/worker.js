// Python for the lesson cells, off the main thread.
//
// A *module* worker (Pyodide 314 refuses classic workers). It is started by cells.js on the first
// Run, never at page load. It loads everything from the course site itself:
//   <root>/vendor/manifest.json          names the grader wheel and the download sizes
//   <root>/vendor/pyodide/pyodide.mjs    Pyodide core, from the pinned npm package
//   <root>/vendor/<grader wheel>         this repository's `grader` package (pure Python)
// and reports download progress while doing so. A later start restores a memory snapshot of
// Python kept in Cache Storage (see startPython below) instead of starting the interpreter.
//
// Messages in:  {type: "init", root, interrupt?: SharedArrayBuffer}
//               {type: "run", id, page, cell, code}
//               {type: "reset", page?}
// Messages out: {type: "progress", percent, label}
//               {type: "ready", seconds, marks, how}   how: "fresh" | "snapshot"
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

// A memory snapshot of Python taken right after a fresh start imported the course's package: a
// later start (a second visit, or the Run after a Stop) restores it instead of starting the
// interpreter, which is most of a start's time. It lives in Cache Storage under a key made of the
// Pyodide version and the wheel's SHA-256 (Pyodide itself refuses a snapshot of another build),
// one at a time. Anything wrong with it (missing, stale, corrupt, no Cache Storage, quota) means
// a normal start: the snapshot is an accelerator, never a dependency.
const SNAPSHOT_CACHE = "course-python-snapshot";

// null where there is nowhere to keep a snapshot: Cache Storage (and crypto.subtle) exist only in
// secure contexts (https, localhost).
async function snapshotKey(manifest, wheelBytes) {
  try {
    if (!self.caches) return null;
    let hash = manifest.grader_wheel_sha256;
    if (!hash) {
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", await wheelBytes));
      hash = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
    }
    return new URL(`__python-snapshot/${manifest.pyodide_version}/${hash}`, self.location).href;
  } catch {
    return null;
  }
}

async function readSnapshot(key) {
  try {
    const response = await (await caches.open(SNAPSHOT_CACHE)).match(key);
    return response ? new Uint8Array(await response.arrayBuffer()) : null;
  } catch {
    return null;
  }
}

async function writeSnapshot(key, bytes) {
  try {
    await caches.delete(SNAPSHOT_CACHE); // keep only the newest
    const headers = { "Content-Type": "application/octet-stream" };
    await (await caches.open(SNAPSHOT_CACHE)).put(key, new Response(bytes, { headers }));
  } catch (err) {
    console.warn("Python snapshot not stored:", err);
  }
}

function dropSnapshot() {
  if (self.caches) caches.delete(SNAPSHOT_CACHE).catch(() => {});
}

// Start Python with the course's package imported: from the snapshot when there is a good one,
// else afresh (and then take a snapshot for next time). `started()` is called once the interpreter
// is up. Returns [pyodide, how].
async function startPython(loadPyodide, options, wheelBytes, key, mark, started) {
  const importCourse = async (py) => {
    const sitePackages = py.runPython("import site; site.getsitepackages()[0]");
    // The files too (a snapshot holds Python's memory, not its file system): tracebacks and
    // `inspect` read them. Import the memory model now, so the first cell's time is its own.
    py.unpackArchive(await wheelBytes, "wheel", { extractDir: sitePackages });
    py.runPython("import grader.cell_runtime, grader.memory");
  };
  const snapshot = key && (await readSnapshot(key));
  if (snapshot) {
    mark("snapshot-read");
    try {
      const py = await loadPyodide({ ...options, _loadSnapshot: snapshot });
      started();
      await importCourse(py);
      return [py, "snapshot"];
    } catch (err) {
      console.warn("Python snapshot unusable, starting afresh:", err);
      dropSnapshot();
    }
  }
  const py = await loadPyodide(key ? { ...options, _makeSnapshot: true } : options);
  started();
  await importCourse(py);
  if (!key) return [py, "fresh"];
  try {
    // Before any cell runs: a snapshot must not hold references to JavaScript objects.
    const bytes = py.makeMemorySnapshot();
    mark("snapshot-made");
    writeSnapshot(key, bytes); // in the background
  } catch (err) {
    console.warn("Python snapshot not made:", err);
  }
  return [py, "fresh"];
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
  const wheelBytes = fetch(wheelURL).then((r) => {
    if (!r.ok) throw new Error(`${manifest.grader_wheel}: HTTP ${r.status} (run \`make vendor\`)`);
    return r.arrayBuffer();
  });
  wheelBytes.catch(() => {}); // reported when awaited
  const key = await snapshotKey(manifest, wheelBytes);
  const { loadPyodide } = await pyodideModule;
  mark("imported");
  const options = { indexURL, env: { HOME: "/home/learner" } };
  const started = () => {
    mark("started");
    downloaded = true;
    post(90, "Loading the course's memory model…");
  };
  const [py, how] = await startPython(loadPyodide, options, wheelBytes, key, mark, started);
  pyodide = py;
  if (interrupt) pyodide.setInterruptBuffer(new Int32Array(interrupt));
  runtime = pyodide.pyimport("grader.cell_runtime");
  mark("ready");
  post(100, "Python ready");
  self.postMessage({ type: "ready", seconds: (performance.now() - t0) / 1000, marks, how });
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
