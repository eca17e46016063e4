// One Python for the whole site visit: a module worker started on the first Run.
//
// Runs are queued and executed one at a time, in the order they were asked for, so the cells of
// a page build on each other in the order the learner runs them. Each page has its own namespace
// inside the worker (see grader/cell_runtime.py); instant navigation keeps the worker alive.
//
// Stop: when the page is cross-origin isolated, Stop first raises KeyboardInterrupt through
// Pyodide's interrupt buffer (the namespace survives); otherwise, or when the cell does not stop
// within STOP_GRACE_MS, the worker is terminated. The next Run starts a fresh Python, so every
// namespace is then empty.

const STOP_GRACE_MS = 600;
const SIGINT = 2;

export class Session {
  /** @param {URL} root  the site root (where vendor/ lives) */
  constructor(root, workerURL) {
    this.root = root;
    this.workerURL = workerURL;
    this.worker = null;
    this.state = "idle"; // idle | loading | ready
    this.queue = []; // [{id, cell, page, code}]
    this.current = null;
    this.nextId = 1;
    this.progress = { percent: 0, label: "" };
  }

  /** Queue a run of `cell` (a Cell from cells.js) with `code`, in the namespace of `page`. */
  run(cell, page, code) {
    if (this.isPending(cell)) return;
    this.queue.push({ id: this.nextId++, cell, page, code });
    if (!this.worker) this.start();
    this.notifyWaiting();
    this.pump();
  }

  isPending(cell) {
    return (this.current && this.current.cell === cell) || this.queue.some((j) => j.cell === cell);
  }

  start() {
    this.state = "loading";
    this.progress = { percent: 0, label: "Loading Python…" };
    this.interrupt =
      self.crossOriginIsolated && typeof SharedArrayBuffer === "function"
        ? new Int32Array(new SharedArrayBuffer(4))
        : null;
    const worker = new Worker(this.workerURL, { type: "module", name: "course-python" });
    worker.onmessage = (e) => this.receive(worker, e.data);
    worker.onerror = (e) => {
      e.preventDefault();
      const detail = e.message || "script error";
      this.fail(
        worker,
        this.state === "ready"
          ? `Python stopped unexpectedly (${detail}); the next Run starts it again.`
          : `Could not load Python: the Python worker did not start (${detail}).`,
      );
    };
    worker.postMessage({
      type: "init",
      root: this.root.href,
      interrupt: this.interrupt ? this.interrupt.buffer : undefined,
    });
    this.worker = worker;
  }

  receive(worker, msg) {
    if (worker !== this.worker) return; // a message from a worker that was stopped
    switch (msg.type) {
      case "progress":
        this.progress = msg;
        this.notifyWaiting();
        break;
      case "ready": {
        this.state = "ready";
        // For anyone measuring (bench/bench_cells.py): seconds to load, ms at each step, and
        // whether Python started afresh or from the stored snapshot.
        const detail = { seconds: msg.seconds, marks: msg.marks, how: msg.how };
        document.dispatchEvent(new CustomEvent("course:python-ready", { detail }));
        this.pump();
        break;
      }
      case "output":
        if (this.current && this.current.id === msg.id) this.current.cell.output(msg.kind, msg.text);
        break;
      case "done":
        if (this.current && this.current.id === msg.id) {
          const { cell } = this.current;
          this.current = null;
          clearTimeout(this.stopTimer);
          cell.finished(msg);
        }
        this.pump();
        break;
      case "failed":
        this.fail(worker, `Could not load Python: ${msg.message}. The next Run tries again.`);
        break;
    }
  }

  fail(worker, message) {
    if (worker !== this.worker) return;
    const jobs = this.dropWorker();
    for (const job of jobs) job.cell.failed(message);
  }

  pump() {
    if (this.state !== "ready" || this.current || this.queue.length === 0) return;
    this.current = this.queue.shift();
    const { id, page, code, cell } = this.current;
    if (this.interrupt) Atomics.store(this.interrupt, 0, 0);
    cell.started();
    this.worker.postMessage({ type: "run", id, page, cell: cell.id, code });
    this.notifyWaiting();
  }

  notifyWaiting() {
    const loading = this.state !== "ready";
    this.queue.forEach((job, i) => job.cell.waiting(loading ? this.progress : { queued: i + 1 }));
  }

  /** Stop `cell`: take it off the queue, or end its run. */
  stop(cell) {
    const i = this.queue.findIndex((j) => j.cell === cell);
    if (i >= 0) {
      // Still waiting (for Python to load, or for another cell): it never ran.
      this.queue.splice(i, 1);
      cell.stopped(false);
      this.notifyWaiting();
      return;
    }
    if (!this.current || this.current.cell !== cell) return;
    if (this.interrupt) {
      // KeyboardInterrupt inside Python; the namespace survives. Restart if it is ignored.
      Atomics.store(this.interrupt, 0, SIGINT);
      clearTimeout(this.stopTimer);
      this.stopTimer = setTimeout(() => {
        if (this.current && this.current.cell === cell) this.restart();
      }, STOP_GRACE_MS);
      return;
    }
    this.restart();
  }

  /** End the worker (and every namespace in it); the next Run starts a fresh one. */
  restart() {
    const jobs = this.dropWorker();
    for (const job of jobs) job.cell.stopped(true);
  }

  dropWorker() {
    const jobs = [...(this.current ? [this.current] : []), ...this.queue];
    if (this.worker) this.worker.terminate();
    clearTimeout(this.stopTimer);
    this.worker = null;
    this.state = "idle";
    this.current = null;
    this.queue = [];
    return jobs;
  }
}
