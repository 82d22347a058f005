#!/usr/bin/env python3
"""Load test of the inference server example (examples/server; docs/server.md).

ctest runs it as `test_server_load.py --ingot BUILD/tools/ingot/ingot` from the build directory;
the server is BUILD/examples/server/ingot_server (or --server PATH). Exit status 77 (skip) when
the server was not built (cpp-httplib missing at configure time), 1 on any failure.

Phases (loopback only; every wait is bounded and the whole test has a time limit):
  0. startup errors (a missing or invalid artifact, bad options): one stderr line, non-zero exit.
  1. models: tiny_cnn and tiny_bert (scripts/make_models.py) and a slow one (slow_model), compiled
     with `ingot compile`; references from `ingot run --num-threads 1` for 4 input sets each.
  2. a server with the three models on port 0 (the port read from its "listening on" line);
     wait for /v2/health/ready.
  3. load: per model, 16 client threads x 20 requests (http.client), mixing JSON, .npy and raw
     bodies and JSON / .npy replies; every output must be bit-identical to the reference;
     throughput, p50 and p99 latency printed as a table.
  4. bad requests: each documented 4xx with a one-line JSON error; mutated .npy and JSON bodies
     get only 200 or 400; the server stays healthy.
  5. reload (endpoint, a new path, SIGHUP, failing loads) while clients run: no failed request.
  6. /metrics: the request counters equal the counts this test made.
  7. SIGTERM with requests queued: each completes correctly, exit status 0 within 5 s.
  8. overload: a second server with --sessions 1 --queue-depth 2 and 16 clients: every reply
     200 or 503 with Retry-After, at least one 503; X-Deadline-Ms 1 on queued requests gives
     504; SIGTERM, exit status 0.
Only the Python standard library, numpy and onnx are used.
"""
import argparse
import collections
import http.client
import io
import json
import os
import random
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import make_models  # noqa: E402
import parity  # noqa: E402
from work_dirs import work_dir  # noqa: E402

SKIP = 77
TIME_LIMIT_S = 600  # the whole test; a hung server is killed and the test fails
CLIENTS = 16
REQUESTS = 20  # per client per model in the load phase
INPUT_SETS = 4
KSERVE = {np.dtype(np.float32): "FP32", np.dtype(np.float16): "FP16", np.dtype(np.float64): "FP64",
          np.dtype(np.int64): "INT64", np.dtype(np.int32): "INT32", np.dtype(np.int8): "INT8",
          np.dtype(np.uint8): "UINT8", np.dtype(np.bool_): "BOOL"}
NUMPY = {v: k for k, v in KSERVE.items()}

failures = []
failures_lock = threading.Lock()
servers = []  # every started Server, killed if the test aborts


def fail(message):
    with failures_lock:
        failures.append(message)
    print(f"FAIL {message}", flush=True)


def check(cond, message):
    if not cond:
        fail(message)
    return cond


# ---- models and references ------------------------------------------------------------------

def slow_model(layers=24, m=128, k=1024):
    """A model slow enough (~25 ms per run on one core) that requests overlap and queue (503,
    504, SIGTERM with requests waiting), with small inputs and no weights: per layer
    y = tanh((y @ y^T / k) @ y), 3.2 GFLOP in all."""
    b = make_models.Builder("slow_matmul", seed=5)
    scale = b.const(np.float32(1.0 / k), "scale")
    y = "x"
    for _ in range(layers):
        g = b.op("Mul", [b.op("MatMul", [y, b.op("Transpose", [y], perm=[1, 0])]), scale])
        y = b.op("Tanh", [b.op("MatMul", [g, y])])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])
    out = helper.make_tensor_value_info(y, TensorProto.FLOAT, [m, k])
    return b.model([x], [out], 13)


def run_tool(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")


def build_model(ingot, workdir, name, model):
    """Compiles `model`; returns {"so", "feeds": [per set], "refs": [per set {output: array}]}."""
    onnx_path = os.path.join(workdir, f"{name}.onnx")
    onnx.save(model, onnx_path)
    feeds = [make_models.make_inputs(model, seed=s) for s in range(INPUT_SETS)]
    so = os.path.join(workdir, f"{name}.so")
    cmd = [ingot, "compile", onnx_path, "-o", so]
    shapes = parity.input_shapes_arg(model, feeds[0])
    if shapes:
        cmd += ["--input-shapes", shapes]
    run_tool(cmd)
    refs = []
    for s, f in enumerate(feeds):
        inputs = os.path.join(workdir, f"{name}.in{s}.npz")
        outputs = os.path.join(workdir, f"{name}.ref{s}.npz")
        np.savez(inputs, **f)
        run_tool([ingot, "run", so, "--inputs", inputs, "--outputs", outputs, "--num-threads", "1"])
        with np.load(outputs) as z:
            refs.append({k: z[k] for k in z.files})
        for k, a in refs[-1].items():
            if a.dtype.kind == "f" and not np.isfinite(a).all():
                raise RuntimeError(f"{name}: reference output {k} of input set {s} is not finite")
    return {"so": so, "feeds": feeds, "refs": refs}


# ---- HTTP -----------------------------------------------------------------------------------

def http_request(port, method, path, body=None, headers=None, timeout=60):
    """-> (status, {lower-case header: value}, body bytes); connection errors raise."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def npy_bytes(a):
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def json_inputs(feeds):
    return {"inputs": [{"name": n, "shape": list(a.shape), "datatype": KSERVE[a.dtype],
                        "data": a.ravel().tolist()} for n, a in feeds.items()]}


def build_request(feeds, variant):
    """variant "BODY>REPLY": BODY json, npy or raw; REPLY json or npy -> (body, headers)."""
    body_kind, reply = variant.split(">")
    headers = {"Accept": "application/x-npy"} if reply == "npy" else {}
    if body_kind == "json":
        headers["Content-Type"] = "application/json"
        return json.dumps(json_inputs(feeds)).encode(), headers
    (a,) = feeds.values()
    if body_kind == "npy":
        headers["Content-Type"] = "application/x-npy"
        return npy_bytes(a), headers
    headers["Content-Type"] = "application/octet-stream"
    return np.ascontiguousarray(a).tobytes(), headers


def same_bits(got, want):
    return got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


def check_reply(status, headers, data, variant, ref, output_names):
    """None when the reply is 200 and bit-identical to `ref`, else what is wrong."""
    if status != 200:
        return f"status {status}: {data[:200]!r}"
    if variant.endswith(">npy"):
        if headers.get("content-type") != "application/x-npy":
            return f"content-type {headers.get('content-type')} for an npy reply"
        got = np.load(io.BytesIO(data), allow_pickle=False)
        name = headers.get("x-output-name")
        if name != output_names[0]:
            return f"npy reply of output {name}, expected the first output {output_names[0]}"
        return None if same_bits(got, ref[name]) else f"output {name} differs from the reference"
    doc = json.loads(data)
    names = [o["name"] for o in doc["outputs"]]
    if names != output_names:
        return f"outputs {names}, expected {output_names}"
    for o in doc["outputs"]:
        got = np.array(o["data"], dtype=NUMPY[o["datatype"]]).reshape(o["shape"])
        if not same_bits(got, ref[o["name"]]):
            return f"output {o['name']} differs from the reference"
    return None


class Counter:
    """Inference requests this test sent to one server, by (model label, status)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = collections.Counter()

    def add(self, model, status):
        with self.lock:
            self.counts[(model, status)] += 1


# ---- the server process ---------------------------------------------------------------------

class Server:
    def __init__(self, binary, models, extra, log_path):
        args = [binary, "--port", "0"]
        for name, so in models.items():
            args += ["--model", f"{name}={so}"]
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(args + extra, stdout=subprocess.PIPE, stderr=self.log,
                                     text=True)
        servers.append(self)
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        line = self.proc.stdout.readline() if ready else ""
        m = re.fullmatch(r"listening on (\S+):(\d+)\n", line)
        if not m:
            self.kill()
            raise RuntimeError(f"no 'listening on' line from {' '.join(args + extra)} "
                               f"(got {line!r}); log: {self.log_text()}")
        self.port = int(m.group(2))

    def log_text(self):
        self.log.flush()
        with open(self.log_path) as f:
            return f.read().strip()

    def wait_ready(self, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            if self.proc.poll() is not None:
                break
            try:
                if http_request(self.port, "GET", "/v2/health/ready", timeout=5)[0] == 200:
                    return True
            except OSError:
                pass
            time.sleep(0.05)
        return False

    def metadata(self, model):
        status, _, data = http_request(self.port, "GET", f"/v2/models/{model}")
        if status != 200:
            raise RuntimeError(f"metadata of {model}: {status} {data!r}")
        return json.loads(data)

    def metrics(self):
        status, _, data = http_request(self.port, "GET", "/metrics")
        if status != 200:
            raise RuntimeError(f"/metrics: {status}")
        samples = {}
        for line in data.decode().splitlines():
            if line.startswith("#") or not line.strip():
                continue
            key, value = line.rsplit(" ", 1)
            samples[key] = float(value)
        return samples

    def stop(self, timeout=5):
        """SIGTERM -> (exit status or None when it did not exit in time, seconds)."""
        t = time.perf_counter()
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            rc = None
            self.kill()
        return rc, time.perf_counter() - t

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def abort_on_time_limit():
    print(f"FAIL: the test ran past its {TIME_LIMIT_S} s limit; killing the servers", flush=True)
    for s in servers:
        s.kill()
    os._exit(1)


# ---- phases ---------------------------------------------------------------------------------

def run_clients(n, fn):
    """Runs fn(i) on n threads started together; returns the wall time in seconds."""
    barrier = threading.Barrier(n + 1)

    def body(i):
        barrier.wait()
        fn(i)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    return time.perf_counter() - t0


def load_phase(server, name, m, variants, counter):
    """CLIENTS x REQUESTS requests of model `name`; -> stats dict."""
    outputs = [o["name"] for o in server.metadata(name)["outputs"]]
    bodies = {(s, v): build_request(m["feeds"][s], v)
              for s in range(INPUT_SETS) for v in variants}
    lat, errors, kinds = [], [], collections.Counter()
    lock = threading.Lock()

    def client(ci):
        for r in range(REQUESTS):
            k = ci * REQUESTS + r
            s, v = k % INPUT_SETS, variants[(k // INPUT_SETS) % len(variants)]
            body, headers = bodies[(s, v)]
            t = time.perf_counter()
            try:
                status, hdrs, data = http_request(server.port, "POST",
                                                  f"/v2/models/{name}/infer", body, headers)
            except Exception as e:  # noqa: BLE001 - every connection error is a failure
                with lock:
                    errors.append(f"client {ci}: {type(e).__name__}: {e}")
                continue
            dt = time.perf_counter() - t
            counter.add(name, status)
            err = check_reply(status, hdrs, data, v, m["refs"][s], outputs)
            with lock:
                kinds[v] += 1
                if err:
                    errors.append(f"client {ci} request {r} ({v}, set {s}): {err}")
                else:
                    lat.append(dt)

    wall = run_clients(CLIENTS, client)
    for e in errors[:10]:
        fail(f"load {name}: {e}")
    check(not errors, f"load {name}: {len(errors)} failed requests")
    lat_ms = np.array(lat) * 1e3 if lat else np.array([float("nan")])
    return {"model": name, "requests": CLIENTS * REQUESTS, "errors": len(errors), "wall": wall,
            "rps": len(lat) / wall, "p50": float(np.percentile(lat_ms, 50)),
            "p99": float(np.percentile(lat_ms, 99)), "mix": dict(kinds)}


def one_line_error(status, headers, data):
    """The JSON error message of a 4xx/5xx reply, or None when it is not a one-line one."""
    if "application/json" not in headers.get("content-type", ""):
        return None
    try:
        msg = json.loads(data).get("error")
    except ValueError:
        return None
    return msg if isinstance(msg, str) and msg and "\n" not in msg else None


def raw_http(port, request_bytes, timeout=10):
    """Sends raw bytes; -> (status, headers, body) of the reply. The connection then closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request_bytes)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, v in
                   (l.split(":", 1) for l in lines[1:] if ":" in l)}
        want = int(headers.get("content-length", "0"))
        while len(body) < want:
            chunk = s.recv(65536)
            if not chunk:
                break
            body += chunk
        return status, headers, body


def bad_requests_phase(server, models, counter, max_body):
    port = server.port
    cnn, bert = models["tiny_cnn"], models["tiny_bert"]
    x = cnn["feeds"][0]["input"]
    good_cnn = json_inputs(cnn["feeds"][0])
    good_bert = json_inputs(bert["feeds"][0])

    def with_input(doc, **changes):
        d = json.loads(json.dumps(doc))
        d["inputs"][0].update(changes)
        return json.dumps(d).encode()

    npy = npy_bytes(x)
    header_len = npy[8] | npy[9] << 8
    J = {"Content-Type": "application/json"}
    NPY = {"Content-Type": "application/x-npy"}
    RAW = {"Content-Type": "application/octet-stream"}
    cases = [
        # (what, model label for the counters or None, method, path, body, headers, status)
        ("unknown model", "_unknown", "POST", "/v2/models/nope/infer", json.dumps(good_cnn), J,
         404),
        ("metadata of an unknown model", None, "GET", "/v2/models/nope", None, {}, 404),
        ("unknown route", None, "GET", "/v2/nothing/here", None, {}, 404),
        ("unknown input name", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer",
         with_input(good_cnn, name="image"), J, 400),
        ("missing input", "tiny_bert", "POST", "/v2/models/tiny_bert/infer",
         json.dumps({"inputs": good_bert["inputs"][:1]}), J, 400),
        ("input given twice", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer",
         json.dumps({"inputs": good_cnn["inputs"] * 2}), J, 400),
        ("wrong shape", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer",
         with_input(good_cnn, shape=[1, 3, 16, 64]), J, 400),
        ("wrong datatype", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer",
         with_input(good_cnn, datatype="FP64"), J, 400),
        ("data length mismatch", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer",
         with_input(good_cnn, data=good_cnn["inputs"][0]["data"][:-1]), J, 400),
        ("non-numeric data", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer",
         with_input(good_cnn, data=["a"] * x.size), J, 400),
        ("int64 out of range", "tiny_bert", "POST", "/v2/models/tiny_bert/infer",
         json.dumps({"inputs": [dict(good_bert["inputs"][0], data=[2 ** 63] * 16),
                                good_bert["inputs"][1]]}), J, 400),
        ("malformed JSON", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer", b"{\"inputs\": [",
         J, 400),
        ("JSON without inputs", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer", b"[1, 2]", J,
         400),
        ("malformed .npy: no magic", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer",
         b"hello, world", NPY, 400),
        ("malformed .npy: truncated data", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer",
         npy[:-5], NPY, 400),
        ("malformed .npy: header length past the end", "tiny_cnn", "POST",
         "/v2/models/tiny_cnn/infer", npy[:8] + b"\xff\xff" + npy[10:10 + header_len], NPY, 400),
        ("malformed .npy: bad header dict", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer",
         npy.replace(b"'shape'", b"'shapf'"), NPY, 400),
        ("malformed .npy: fortran order", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer",
         npy.replace(b"False", b"True "), NPY, 400),
        (".npy of the wrong dtype", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer",
         npy_bytes(x.astype(np.float64)), NPY, 400),
        (".npy of the wrong shape", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer",
         npy_bytes(x.reshape(1, 3, 16, 64)), NPY, 400),
        (".npy for a two-input model", "tiny_bert", "POST", "/v2/models/tiny_bert/infer",
         npy_bytes(bert["feeds"][0]["input_ids"]), NPY, 400),
        ("raw body of the wrong size", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer",
         x.tobytes()[:-4], RAW, 400),
        ("raw body for a two-input model", "tiny_bert", "POST", "/v2/models/tiny_bert/infer",
         bert["feeds"][0]["input_ids"].tobytes(), RAW, 400),
        ("unknown output", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer?output=nope",
         npy, dict(NPY, Accept="application/x-npy"), 400),
        ("bad X-Deadline-Ms", "tiny_cnn", "POST", "/v2/models/tiny_cnn/infer", npy,
         dict(NPY, **{"X-Deadline-Ms": "soon"}), 400),
        ("reload of an unknown model", None, "POST", "/v2/models/nope/reload", b"", {}, 404),
        ("reload with malformed JSON", None, "POST", "/v2/models/tiny_cnn/reload", b"{", J, 400),
    ]
    rows = []
    for what, label, method, path, body, headers, want in cases:
        if isinstance(body, str):
            body = body.encode()
        try:
            status, hdrs, data = http_request(port, method, path, body, headers)
        except Exception as e:  # noqa: BLE001
            fail(f"bad request '{what}': {type(e).__name__}: {e}")
            continue
        if label:
            counter.add(label, status)
        msg = one_line_error(status, hdrs, data)
        check(status == want,
              f"bad request '{what}': status {status}, expected {want} ({data[:200]!r})")
        check(msg is not None, f"bad request '{what}': no one-line JSON error ({data[:200]!r})")
        rows.append((what, status, msg))

    # A body over --max-body-bytes: announced by Content-Length, refused before it is sent.
    status, hdrs, data = raw_http(port, (
        f"POST /v2/models/tiny_cnn/infer HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/json\r\nContent-Length: {max_body + 1}\r\n"
        f"Connection: close\r\n\r\n").encode())
    counter.add("tiny_cnn", status)
    msg = one_line_error(status, hdrs, data)
    check(status == 413, f"body over --max-body-bytes: status {status}, expected 413")
    check(msg is not None, f"body over --max-body-bytes: no one-line JSON error ({data[:200]!r})")
    rows.append(("body over --max-body-bytes", status, msg))
    for what, status, msg in rows:
        print(f"  {status}  {what:45s} {msg}")

    # Mutated .npy and JSON bodies: 200 or 400, nothing else, and no crash.
    rng = random.Random(1)
    json_body = json.dumps(good_cnn).encode()
    bad = collections.Counter()
    for i in range(200):
        base, headers = (npy, NPY) if i % 2 == 0 else (json_body, J)
        b = bytearray(base)
        kind = rng.randrange(4)
        if kind == 0:
            b = b[:rng.randrange(len(b))]
        elif kind == 1:
            for _ in range(rng.randrange(1, 4)):
                b[rng.randrange(min(len(b), 160))] = rng.randrange(256)
        elif kind == 2:
            b += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16)))
        else:
            p = rng.randrange(min(len(b), 160))
            b = b[:p] + b[p + rng.randrange(1, 8):]
        try:
            status, hdrs, data = http_request(port, "POST", "/v2/models/tiny_cnn/infer",
                                              bytes(b), headers)
        except Exception as e:  # noqa: BLE001
            fail(f"mutated body {i}: {type(e).__name__}: {e}")
            break
        counter.add("tiny_cnn", status)
        bad[status] += 1
        if status not in (200, 400) or (status == 400
                                        and one_line_error(status, hdrs, data) is None):
            fail(f"mutated body {i} (kind {kind}): status {status} {data[:200]!r}")
    print(f"  200 mutated .npy / JSON bodies: {dict(sorted(bad.items()))}")
    check(server.proc.poll() is None, "the server died during the bad requests")
    check(http_request(port, "GET", "/v2/health/live")[0] == 200, "live after bad requests")
    check(http_request(port, "GET", "/v2/health/ready")[0] == 200, "ready after bad requests")
    outputs = [o["name"] for o in server.metadata("tiny_cnn")["outputs"]]
    body, headers = build_request(cnn["feeds"][1], "json>json")
    status, hdrs, data = http_request(port, "POST", "/v2/models/tiny_cnn/infer", body, headers)
    counter.add("tiny_cnn", status)
    err = check_reply(status, hdrs, data, "json>json", cnn["refs"][1], outputs)
    check(err is None, f"a good request after the bad ones: {err}")


def reload_phase(server, models, counter, workdir):
    cnn, bert = models["tiny_cnn"], models["tiny_bert"]
    copy = os.path.join(workdir, "tiny_cnn_copy.so")
    shutil.copyfile(cnn["so"], copy)
    garbage = os.path.join(workdir, "garbage.so")
    with open(garbage, "wb") as f:
        f.write(b"this is not an artifact\n" * 100)
    outputs = {n: [o["name"] for o in server.metadata(n)["outputs"]] for n in models}
    stop = threading.Event()
    done, errors = collections.Counter(), []
    lock = threading.Lock()

    def client(ci):
        k = 0
        while not stop.is_set():
            name = ("tiny_cnn", "tiny_bert")[k % 2]
            s = (k // 2) % INPUT_SETS
            v = "json>json" if (k // 2) % 3 else "json>npy"
            body, headers = build_request(models[name]["feeds"][s], v)
            k += 1
            try:
                status, hdrs, data = http_request(server.port, "POST",
                                                  f"/v2/models/{name}/infer", body, headers)
            except Exception as e:  # noqa: BLE001
                with lock:
                    errors.append(f"client {ci}: {type(e).__name__}: {e}")
                continue
            counter.add(name, status)
            err = check_reply(status, hdrs, data, v, models[name]["refs"][s], outputs[name])
            with lock:
                done[name] += 1
                if err:
                    errors.append(f"client {ci} ({name}, {v}): {err}")

    threads = [threading.Thread(target=client, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    try:
        def reload(name, body, want):
            status, hdrs, data = http_request(server.port, "POST", f"/v2/models/{name}/reload",
                                              json.dumps(body).encode() if body is not None
                                              else b"", {"Content-Type": "application/json"})
            msg = json.loads(data).get("error") if status != 200 else None
            check(status == want, f"reload {name} {body}: status {status}, expected {want} "
                                  f"({data[:300]!r})")
            if status != 200:
                check(one_line_error(status, hdrs, data) is not None,
                      f"reload {name} {body}: no one-line JSON error")
            print(f"  reload {name} {json.dumps(body) if body else '(same path)'}: {status}"
                  f"{' ' + msg if msg else ''}")
            time.sleep(0.3)

        def version(name):
            return server.metadata(name)["versions"][0]

        time.sleep(0.3)
        reload("tiny_cnn", None, 200)
        reload("tiny_cnn", {"path": copy}, 200)
        check(server.metadata("tiny_cnn")["parameters"]["path"] == copy, "reload to a new path")
        reload("tiny_cnn", {"path": os.path.join(workdir, "missing.so")}, 400)
        reload("tiny_cnn", {"path": garbage}, 400)
        check(version("tiny_cnn") == "3",
              f"a failed reload changed the version ({version('tiny_cnn')})")
        server.proc.send_signal(signal.SIGHUP)
        want = {"tiny_cnn": "4", "tiny_bert": "2", "slow_matmul": "2"}
        end = time.time() + 20
        while time.time() < end and {n: version(n) for n in want} != want:
            time.sleep(0.05)
        got = {n: version(n) for n in want}
        check(got == want, f"SIGHUP: model versions {got}, expected {want}")
        print("  SIGHUP: every model reloaded")
        time.sleep(0.3)
        reload("tiny_bert", None, 200)
    finally:
        stop.set()
        for t in threads:
            t.join()
    for e in errors[:10]:
        fail(f"reload: {e}")
    check(not errors, f"reload: {len(errors)} failed requests during reloads")
    check(min(done.values(), default=0) > 0, f"reload: clients made requests ({dict(done)})")
    print(f"  requests during the reloads: {dict(done)}, failed: {len(errors)}")
    return {"tiny_cnn": {"ok": 3, "error": 2}, "tiny_bert": {"ok": 2}, "slow_matmul": {"ok": 1}}


def metrics_phase(server, counter, reloads, models):
    samples = server.metrics()
    got = {}
    for key, value in samples.items():
        m = re.fullmatch(r'ingot_requests_total\{model="([^"]*)",code="(\d+)"\}', key)
        if m:
            got[(m.group(1), int(m.group(2)))] = int(value)
    want = dict(counter.counts)
    check(got == want, f"/metrics request counters {sorted(got.items())} != the test's "
                       f"{sorted(want.items())}")
    for name in models:
        n = samples.get(f'ingot_request_duration_seconds_count{{model="{name}"}}')
        check(n == want.get((name, 200), 0), f"latency histogram count of {name}: {n}, expected "
                                            f"{want.get((name, 200), 0)}")
        inf = samples.get(f'ingot_request_duration_seconds_bucket{{model="{name}",le="+Inf"}}')
        check(inf == n, f"+Inf bucket of {name}: {inf}")
        for gauge in ("ingot_queue_depth", "ingot_inflight_requests"):
            v = samples.get(f'{gauge}{{model="{name}"}}')
            check(v == 0, f"{gauge} of {name} at rest: {v}")
        check(samples.get(f'ingot_sessions{{model="{name}"}}', 0) >= 1, f"ingot_sessions {name}")
    for name, results in reloads.items():
        for result, n in results.items():
            v = samples.get(f'ingot_reloads_total{{model="{name}",result="{result}"}}')
            check(v == n, f"ingot_reloads_total {name} {result}: {v}, expected {n}")
    print(f"  {len(got)} request counters match the test's counts "
          f"({sum(want.values())} requests)" if got == want else "  request counters differ")


def sigterm_phase(server, name, m, n_requests):
    """Queues n_requests slow requests, sends SIGTERM while some wait: all complete."""
    outputs = [o["name"] for o in server.metadata(name)["outputs"]]
    results = [None] * n_requests
    finished_at = [0.0] * n_requests

    def client(i):
        s = i % INPUT_SETS
        body, headers = build_request(m["feeds"][s], "raw>npy")
        try:
            status, hdrs, data = http_request(server.port, "POST", f"/v2/models/{name}/infer",
                                              body, headers)
            results[i] = check_reply(status, hdrs, data, "raw>npy", m["refs"][s], outputs)
        except Exception as e:  # noqa: BLE001
            results[i] = f"{type(e).__name__}: {e}"
        finished_at[i] = time.perf_counter()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(n_requests)]
    for t in threads:
        t.start()
    # Signal once every request holds or waits for a session and some still wait.
    end = time.time() + 20
    queued = 0
    while time.time() < end:
        samples = server.metrics()
        queued = samples.get(f'ingot_queue_depth{{model="{name}"}}', 0)
        in_flight = samples.get(f'ingot_inflight_requests{{model="{name}"}}', 0)
        finished = sum(1 for t in finished_at if t)
        if queued >= 1 and queued + in_flight + finished >= n_requests:
            break
        time.sleep(0.001)
    check(queued >= 1, f"SIGTERM: the {n_requests} requests of {name} were never all queued")
    signalled = time.perf_counter()
    rc, seconds = server.stop(timeout=5)
    for t in threads:
        t.join(30)
    after = sum(1 for t in finished_at if t > signalled)
    bad = [r for r in results if r is not None]
    for r in bad[:5]:
        fail(f"SIGTERM: an in-flight request failed: {r}")
    check(rc == 0, f"SIGTERM: exit status {rc}, expected 0 within 5 s")
    print(f"  SIGTERM with {int(queued)} queued: exit status {rc} after {seconds:.2f} s; "
          f"{n_requests - len(bad)}/{n_requests} requests completed correctly, {after} of them "
          f"after the signal")
    check(after >= 1, "SIGTERM: no request completed after the signal (nothing was in flight)")


def overload_phase(binary, models, workdir):
    slow, cnn = models["slow_matmul"], models["tiny_cnn"]
    server = Server(binary, {"slow_matmul": slow["so"], "tiny_cnn": cnn["so"]},
                    ["--sessions", "1", "--queue-depth", "2", "--threads-per-run", "1"],
                    os.path.join(workdir, "server_overload.log"))
    if not check(server.wait_ready(), f"overload server not ready: {server.log_text()}"):
        server.kill()
        return {}
    outputs = {n: [o["name"] for o in server.metadata(n)["outputs"]]
               for n in ("slow_matmul", "tiny_cnn")}
    statuses, errors = collections.Counter(), []
    lock = threading.Lock()

    def client(ci):
        for r in range(10):
            name = "slow_matmul" if (ci + r) % 4 else "tiny_cnn"
            s = (ci + r) % INPUT_SETS
            v = "raw>npy" if name == "slow_matmul" else "npy>json"
            body, headers = build_request(models[name]["feeds"][s], v)
            try:
                status, hdrs, data = http_request(server.port, "POST",
                                                  f"/v2/models/{name}/infer", body, headers)
            except Exception as e:  # noqa: BLE001
                with lock:
                    errors.append(f"client {ci}: {type(e).__name__}: {e}")
                continue
            err = None
            if status == 200:
                err = check_reply(status, hdrs, data, v, models[name]["refs"][s], outputs[name])
            elif status == 503:
                if "retry-after" not in hdrs:
                    err = "503 without Retry-After"
                elif one_line_error(status, hdrs, data) is None:
                    err = "503 without a one-line JSON error"
            else:
                err = f"status {status}: {data[:200]!r}"
            with lock:
                statuses[status] += 1
                if err:
                    errors.append(f"client {ci} ({name}): {err}")

    wall = run_clients(CLIENTS, client)
    for e in errors[:10]:
        fail(f"overload: {e}")
    check(not errors, f"overload: {len(errors)} replies other than 200 / 503 with Retry-After")
    check(statuses[503] >= 1, f"overload: no 503 ({dict(statuses)})")
    print(f"  {CLIENTS} clients x 10 requests, --sessions 1 --queue-depth 2: "
          f"{dict(sorted(statuses.items()))} in {wall:.2f} s, {len(errors)} errors")

    # X-Deadline-Ms 1: a request that waits in the queue longer gets 504.
    deadline = collections.Counter()
    body, headers = build_request(slow["feeds"][0], "raw>npy")
    headers = dict(headers, **{"X-Deadline-Ms": "1"})
    for _ in range(5):
        def dclient(ci):
            try:
                status, hdrs, data = http_request(server.port, "POST",
                                                  "/v2/models/slow_matmul/infer", body, headers)
            except Exception as e:  # noqa: BLE001
                status = f"{type(e).__name__}: {e}"
            with lock:
                deadline[status] += 1
        run_clients(8, dclient)
        if deadline[504]:
            break
    check(set(deadline) <= {200, 503, 504}, f"X-Deadline-Ms 1: replies {dict(deadline)}")
    check(deadline[504] >= 1, f"X-Deadline-Ms 1: no 504 ({dict(deadline)})")
    print(f"  X-Deadline-Ms 1 on queued requests: {dict(sorted(deadline.items(), key=str))}")
    rc, seconds = server.stop()
    check(rc == 0, f"overload server: exit status {rc} after SIGTERM")
    return {"statuses": dict(statuses), "wall": wall, "deadline": dict(deadline)}


def startup_errors_phase(binary, models, workdir):
    """Bad options and artifacts: one line on stderr, non-zero exit."""
    garbage = os.path.join(workdir, "garbage.so")
    with open(garbage, "wb") as f:
        f.write(b"this is not an artifact\n" * 100)
    cases = [
        ("missing artifact", ["--model", f"m={os.path.join(workdir, 'missing.so')}"]),
        ("not an artifact", ["--model", f"m={garbage}"]),
        ("bad --model", ["--model", "no_equals_sign"]),
        ("bad --sessions", ["--model", f"m={models['tiny_cnn']['so']}", "--sessions", "0"]),
        ("no --model", []),
    ]
    for what, args in cases:
        p = subprocess.run([binary, "--port", "0"] + args, capture_output=True, text=True,
                           timeout=30)
        lines = p.stderr.strip().splitlines()
        check(p.returncode != 0, f"startup error '{what}': exit status 0")
        check(len(lines) == 1,
              f"startup error '{what}': {len(lines)} lines on stderr: {p.stderr!r}")
        print(f"  {what}: exit {p.returncode}: {lines[0] if lines else ''}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ingot", required=True, help="the ingot CLI (BUILD/tools/ingot/ingot)")
    ap.add_argument("--server", default=None,
                    help="ingot_server (default: BUILD/examples/server/ingot_server)")
    ap.add_argument("--workdir", default=None, help="default: BUILD/server_load")
    args = ap.parse_args()
    ingot = os.path.abspath(args.ingot)
    build = os.path.dirname(os.path.dirname(os.path.dirname(ingot)))
    binary = os.path.abspath(args.server or os.path.join(build, "examples", "server",
                                                         "ingot_server"))
    if not os.path.exists(binary):
        print(f"SKIP: {binary} was not built (cpp-httplib, nlohmann_json or CLI11 missing at "
              f"configure time, or INGOT_BUILD_EXAMPLES=OFF)")
        return SKIP
    timer = threading.Timer(TIME_LIMIT_S, abort_on_time_limit)
    timer.daemon = True
    timer.start()
    workdir = os.path.abspath(args.workdir) if args.workdir else work_dir(ingot, "server_load")
    os.makedirs(workdir, exist_ok=True)
    t_start = time.perf_counter()

    print("== 1. models and references", flush=True)
    models = {
        "tiny_cnn": build_model(ingot, workdir, "tiny_cnn", make_models.MODELS["tiny_cnn"]()),
        "tiny_bert": build_model(ingot, workdir, "tiny_bert", make_models.MODELS["tiny_bert"]()),
        "slow_matmul": build_model(ingot, workdir, "slow_matmul", slow_model()),
    }
    print(f"  compiled {', '.join(models)} in {workdir}")

    print("== startup errors", flush=True)
    startup_errors_phase(binary, models, workdir)

    print("== 2. server", flush=True)
    max_body = 4 << 20
    sessions = min(os.cpu_count() or 1, 4)  # the SIGTERM phase needs 4 x sessions requests
    server = Server(binary, {n: m["so"] for n, m in models.items()},
                    ["--max-body-bytes", str(max_body), "--sessions", str(sessions)],
                    os.path.join(workdir, "server.log"))
    try:
        if not check(server.wait_ready(), f"server not ready: {server.log_text()}"):
            return 1
        print(f"  port {server.port}; {server.log_text().splitlines()[-1]}")
        counter = Counter()

        print(f"== 3. load: {CLIENTS} clients x {REQUESTS} requests per model", flush=True)
        stats = [load_phase(server, "tiny_cnn", models["tiny_cnn"],
                            ["json>json", "npy>npy", "raw>json", "json>npy", "npy>json"],
                            counter),
                 load_phase(server, "tiny_bert", models["tiny_bert"], ["json>json", "json>npy"],
                            counter)]
        samples = server.metrics()  # the server's own latency: body received to reply built
        for st in stats:
            total = samples.get(f'ingot_request_duration_seconds_sum{{model="{st["model"]}"}}', 0)
            n = samples.get(f'ingot_request_duration_seconds_count{{model="{st["model"]}"}}', 0)
            st["server_ms"] = total / n * 1e3 if n else float("nan")

        print("== 4. bad requests", flush=True)
        bad_requests_phase(server, models, counter, max_body)

        print("== 5. reload while clients run", flush=True)
        reloads = reload_phase(server, models, counter, workdir)

        print("== 6. metrics", flush=True)
        metrics_phase(server, counter, reloads, models)

        print("== 7. SIGTERM with requests in flight", flush=True)
        sigterm_phase(server, "slow_matmul", models["slow_matmul"], 4 * sessions + 4)
    finally:
        server.kill()

    print("== 8. overload", flush=True)
    overload = overload_phase(binary, models, workdir)

    cores = os.cpu_count()
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    print(f"\n== summary ({cores} cores{', ' + cpu if cpu else ''}; --sessions {sessions}; "
          f"{time.perf_counter() - t_start:.0f} s)")
    print(f"{'model':12s} {'requests':>8s} {'errors':>6s} {'wall s':>7s} {'req/s':>7s} "
          f"{'p50 ms':>7s} {'p99 ms':>7s} {'server ms':>9s}  body>reply mix")
    for s in stats:
        mix = ", ".join(f"{k} {v}" for k, v in sorted(s["mix"].items()))
        print(f"{s['model']:12s} {s['requests']:8d} {s['errors']:6d} {s['wall']:7.2f} "
              f"{s['rps']:7.1f} {s['p50']:7.2f} {s['p99']:7.2f} {s['server_ms']:9.3f}  {mix}")
    print("(p50 / p99: client-side latency of each request, connect to reply read, with 16 "
          "Python client threads; server ms: the server's mean time from body received to reply "
          "built, from /metrics)")
    if overload:
        print(f"overload (--sessions 1 --queue-depth 2, {CLIENTS} clients): "
              f"{overload['statuses'].get(200, 0)} x 200, {overload['statuses'].get(503, 0)} x 503;"
              f" X-Deadline-Ms 1: {overload['deadline'].get(504, 0)} x 504")
    if failures:
        print(f"server load test: {len(failures)} failures")
        return 1
    print("server load test: PASS")
    return 0


if __name__ == "__main__":
    rc = 1
    try:
        rc = main()
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        print(f"FAIL: {type(e).__name__}: {e}", flush=True)
    finally:
        for s in servers:
            s.kill()
    sys.exit(rc)
