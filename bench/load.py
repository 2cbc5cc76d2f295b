"""HTTP load from a process of its own: `wrk` when installed, else a small threaded Python client.

Both answer the same summary: requests, seconds, errors (socket errors and answers >= 400), requests per
second and p50/p99 latency in milliseconds. `python -m bench.load SPEC_JSON` runs the Python client.
"""

import http.client
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

# Each wrk thread has its own Lua state: ids are made unique by the run's nonce, the thread and a counter.
_LUA = r"""
local method, path, body, unique = %(method)s, %(path)s, %(body)s, %(unique)s
local headers = %(headers)s
local paths = %(paths)s
local counter = 0
local prefix = ""
local threads = 0
function setup(thread) threads = threads + 1; thread:set("id", threads) end
function init(args) prefix = %(run)s .. "-" .. (id or 0); math.randomseed(os.time() + (id or 0)) end
function request()
  counter = counter + 1
  local p = path
  if #paths > 0 then p = paths[math.random(#paths)] end
  local h = {}
  for k, v in pairs(headers) do h[k] = v end
  local b = body
  if unique then
    local tag = prefix .. "-" .. counter
    h["Idempotency-Key"] = "bench-" .. tag
    b = string.gsub(body, "{{n}}", tag)
  end
  return wrk.format(method, p, h, b)
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests": %%d, "duration_us": %%d, "socket_errors": %%d, "status_errors": %%d, ' ..
    '"p50_us": %%d, "p99_us": %%d}\n', summary.requests, summary.duration,
    e.connect + e.read + e.write + e.timeout, e.status, latency:percentile(50), latency:percentile(99)))
end
"""


def _lua_string(value):
    return "[==[" + value + "]==]"


def _lua_list(values):
    return "{" + ", ".join(_lua_string(v) for v in values) + "}"


def _lua_table(mapping):
    return "{" + ", ".join(f"[ {_lua_string(k)} ] = {_lua_string(v)}" for k, v in mapping.items()) + "}"


def engine():
    return "wrk" if shutil.which("wrk") else "python"


def run(spec):
    """spec: url, method, headers, body (with {{n}} replaced per request when unique), unique, connections,
    threads, seconds; optionally paths (each request picks one at random, on url's host)."""
    return _wrk(spec) if engine() == "wrk" else _python(spec)


def _wrk(spec):
    host, path = _split(spec["url"])
    script = _LUA % {"method": _lua_string(spec.get("method", "GET")), "path": _lua_string(path),
                     "body": _lua_string(spec.get("body") or ""), "unique": "true" if spec.get("unique") else "false",
                     "headers": _lua_table(spec.get("headers", {})), "paths": _lua_list(spec.get("paths", [])),
                     "run": _lua_string(uuid.uuid4().hex[:12])}
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as lua:
        lua.write(script)
        lua.flush()
        out = subprocess.run(["wrk", "-t", str(spec.get("threads", 2)), "-c", str(spec["connections"]),
                              "-d", f"{spec['seconds']}s", "--timeout", "10s", "-s", lua.name, f"http://{host}"],
                             capture_output=True, text=True, check=True).stdout
    line = next(line for line in out.splitlines() if line.startswith("{"))
    raw = json.loads(line)
    seconds = raw["duration_us"] / 1e6
    return {"requests": raw["requests"], "seconds": seconds, "errors": raw["socket_errors"] + raw["status_errors"],
            "rps": raw["requests"] / seconds, "p50_ms": raw["p50_us"] / 1000, "p99_ms": raw["p99_us"] / 1000}


def _python(spec):
    out = subprocess.run([sys.executable, "-m", "bench.load", json.dumps(spec)], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def _split(url):
    rest = url.split("://", 1)[1]
    host, _, path = rest.partition("/")
    return host, "/" + path


def _client(spec, stop, latencies, errors):
    import random

    host, path = _split(spec["url"])
    paths = spec.get("paths") or [path]
    hostname, port = host.split(":")
    connection = http.client.HTTPConnection(hostname, int(port), timeout=10)
    mine, failed = [], 0
    while not stop.is_set():
        headers, body = dict(spec.get("headers", {})), spec.get("body")
        if spec.get("unique"):
            tag = uuid.uuid4().hex
            headers["Idempotency-Key"] = f"bench-{tag}"
            body = body.replace("{{n}}", tag)
        started = time.perf_counter()
        try:
            connection.request(spec.get("method", "GET"), random.choice(paths), body=body, headers=headers)
            response = connection.getresponse()
            response.read()
            failed += response.status >= 400
        except (OSError, http.client.HTTPException):
            failed += 1
            connection.close()
            connection = http.client.HTTPConnection(hostname, int(port), timeout=10)
            continue
        mine.append(time.perf_counter() - started)
    latencies.extend(mine)
    errors.append(failed)


def main(argv=None):
    spec = json.loads((argv or sys.argv[1:])[0])
    stop, latencies, errors = threading.Event(), [], []
    threads = [threading.Thread(target=_client, args=(spec, stop, latencies, errors))
               for _ in range(spec["connections"])]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    time.sleep(spec["seconds"])
    stop.set()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    ordered = sorted(latencies) or [0.0]
    print(json.dumps({"requests": len(latencies), "seconds": seconds, "errors": sum(errors),
                      "rps": len(latencies) / seconds, "p50_ms": statistics.median(ordered) * 1000,
                      "p99_ms": ordered[int(0.99 * (len(ordered) - 1))] * 1000}))


if __name__ == "__main__":
    main()
