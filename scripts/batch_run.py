"""Runs `ingot run` command lines through persistent `ingot run --batch -` processes, one per
calling thread, so that a test runner with hundreds of artifacts pays the process start and the
OpenCL compiler's one-time start (PoCL parses its kernel library at the first build in a process:
~0.7 s of a ~0.9 s first build) once per worker instead of once per test.

The protocol is the CLI's (docs/cli.md, `ingot run --batch`): a line of `ingot run` arguments in;
the run's output, an "error: ..." line on failure, then "ingot-batch: LINE exit STATUS" out. A
worker that dies (a crashing artifact) reports the signal for the run it was on and is restarted
for the next; a run past its timeout kills its worker the same way."""
import os
import re
import select
import subprocess
import threading
import time

_MARK = re.compile(rb"^ingot-batch: \d+ exit (\d+)$")


class BatchRunner:
    def __init__(self, ingot):
        self.ingot = ingot
        self._local = threading.local()
        self._lock = threading.Lock()
        self._procs = []

    def _worker(self):
        p = getattr(self._local, "proc", None)
        if p is None or p.poll() is not None:
            p = subprocess.Popen([self.ingot, "run", "--batch", "-"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=0)
            self._local.proc, self._local.buf = p, b""
            with self._lock:
                self._procs.append(p)
        return p

    def _drop(self, p, kill):
        if kill:
            p.kill()
        p.wait()
        self._local.proc = None

    def run(self, args, timeout):
        """args: `ingot run`'s arguments (no whitespace or quotes in any). -> (status, output):
        status is the run's exit status, negative for the signal that killed the worker, or None
        on a timeout; output is what the run printed (its error line included)."""
        if any(re.search(r"[\s'\"]", a) for a in args):
            raise ValueError(f"batch arguments must not hold spaces or quotes: {args}")
        p = self._worker()
        out = []
        try:
            p.stdin.write((" ".join(args) + "\n").encode())
        except BrokenPipeError:
            self._drop(p, kill=False)
            return p.returncode, "the batch worker exited"
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self._local.buf:
                line, self._local.buf = self._local.buf.split(b"\n", 1)
                m = _MARK.match(line)
                if m:
                    return int(m.group(1)), "\n".join(out)
                out.append(line.decode(errors="replace"))
            left = deadline - time.monotonic()
            ready = select.select([p.stdout], [], [], max(0.0, left))[0] if left > 0 else []
            if not ready:
                self._drop(p, kill=True)
                return None, "\n".join(out)
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:  # the worker died on this run
                self._drop(p, kill=False)
                out.append(self._local.buf.decode(errors="replace"))
                return p.returncode or 255, "\n".join(out)  # exited without a result line
            self._local.buf += chunk

    def close(self):
        with self._lock:
            procs, self._procs = self._procs, []
        for p in procs:
            if p.poll() is None:
                try:
                    p.stdin.close()
                    p.wait(timeout=30)
                except (OSError, subprocess.TimeoutExpired):
                    p.kill()
                    p.wait()
