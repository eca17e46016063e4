"""The program that runs inside the sandbox: load the submission, call its function on request.

Run by the sandbox's own interpreter (``/usr/bin/python3.11 -I -S -c <this file's text>``) as
an unprivileged user: standard library only, nothing from the grader. Requests come from the
grader (trusted) as length-prefixed ``marshal`` frames: the first ``{"source", "function"}``
loads the code; each later ``{"kwargs": {...}}`` calls the function, and ``{"batch": [{...},
...]}`` calls it once per set of arguments in one round trip. Replies go back (untrusted, so the
grader reads them with ``json.loads`` only) as one JSON object per line: ``{"ok": true, "value":
...}`` or ``{"ok": false, "error": "..."}``, plus the first characters the code printed. Only
plain values leave (exact ``int``/``float``/``str``/``bool``/``None`` and lists/dicts of them):
an object whose ``__eq__`` always says True never reaches the grader. The ``json`` module is not
imported (its ``re`` and ``enum`` imports cost more than the rest of start-up); a small encoder
for these plain values does the writing.
"""

import builtins
import marshal
import os
import sys

try:
    from _json import encode_basestring_ascii as _quote
except ImportError:  # pragma: no cover - CPython always has _json
    from json import dumps as _quote

OUTPUT_CHARS = 2000
MAX_DEPTH = 20

_proto_in = os.fdopen(os.dup(0), "rb")
_proto_out = os.fdopen(os.dup(1), "wb")
_null = os.open(os.devnull, os.O_RDWR)
for _fd in (0, 1, 2):
    os.dup2(_null, _fd)


class _Capped:
    """stdout/stderr for the submission: keeps the first characters, counts and drops the rest."""

    def __init__(self):
        self.kept = []
        self.size = 0
        self.dropped = 0

    def write(self, text):
        text = str(text)
        room = OUTPUT_CHARS - self.size
        if room > 0:
            self.kept.append(text[:room])
            self.size += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    def take(self):
        text = "".join(self.kept)
        if self.dropped:
            text += f"\n[... {self.dropped} more characters of output dropped]"
        self.kept, self.size, self.dropped = [], 0, 0
        return text


_out = _Capped()
sys.stdout = sys.stderr = _out
sys.stdin = None


def _reply(message):
    message["stdout"] = _out.take()
    data = _dumps(message).encode("ascii") + b"\n"
    _proto_out.write(data)
    _proto_out.flush()


def _dumps(value):
    """JSON text of a plain value (already checked by ``_plain``)."""
    kind = type(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        return float.__repr__(value)
    if kind is str:
        return _quote(value)
    if kind is list:
        return "[" + ",".join(_dumps(v) for v in value) + "]"
    if kind is dict:
        return "{" + ",".join(_quote(k) + ":" + _dumps(v) for k, v in value.items()) + "}"
    raise TypeError(f"cannot send a {kind.__name__}")


def _read_request():
    header = _proto_in.read(4)
    if len(header) < 4:
        return None
    size = int.from_bytes(header, "big")
    return marshal.loads(_proto_in.read(size))


def _plain(value, depth=0):
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"returned {value!r}, not a finite number")
        return value
    if depth > MAX_DEPTH:
        raise TypeError("the value is nested too deeply")
    if kind in (list, tuple):
        return [_plain(v, depth + 1) for v in value]
    if kind is dict:
        return {
            str(k) if type(k) is str else _bad(k): _plain(v, depth + 1) for k, v in value.items()
        }
    module = getattr(kind, "__module__", "")
    if module in ("fractions", "decimal") and kind.__name__ in ("Fraction", "Decimal"):
        return float(value)
    return _bad(value)


def _key(key):
    return key if type(key) is str else _bad(key)


def _bad(value):
    raise TypeError(
        f"returned an object of type {type(value).__name__}, not a plain number (int or float)"
    )


def _error(exc):
    import traceback  # only when something failed: it costs start-up time

    where = ""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename == "submission.py":
            where = f" (line {frame.lineno} of your code)"
            break
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return text[:500] + where


def _run(action, *args, **kwargs):
    try:
        return True, action(*args, **kwargs)
    except SystemExit as exc:
        return False, f"your code called sys.exit({exc.code!r}); return a value instead"
    except MemoryError:
        return False, "MemoryError: your code ran out of memory (the sandbox's limit)"
    except RecursionError:
        return False, "RecursionError: maximum recursion depth exceeded"
    except BaseException as exc:  # everything the submission raises is reported, never fatal
        return False, _error(exc)


def _load(source, function):
    namespace = {"__name__": "submission", "__builtins__": builtins}
    exec(compile(source, "submission.py", "exec"), namespace)
    fn = namespace.get(function)
    if not callable(fn):
        raise NameError(f"your code does not define a function {function!r}")
    return fn


def main():
    request = _read_request() or {}
    ok, fn = _run(_load, request.get("source", ""), request.get("function", ""))
    if not ok:
        _reply({"ok": False, "error": fn})
        return
    _reply({"ok": True})
    while True:
        request = _read_request()
        if request is None:
            return
        if "batch" in request:  # many calls, one round trip
            _reply({"ok": True, "values": [_call(fn, kwargs) for kwargs in request["batch"]]})
        else:
            _reply(_call(fn, request.get("kwargs", {})))


def _call(fn, kwargs):
    ok, value = _run(fn, **kwargs)
    if ok:
        ok, value = _run(_plain, value)
    return {"ok": True, "value": value} if ok else {"ok": False, "error": value}


main()
