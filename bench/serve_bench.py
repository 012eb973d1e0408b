"""Benchmark: how long `errdocs serve DATA` makes a reader wait for the home page.

In a fresh copy of the project's MkDocs side (config, docs, overrides; no `.errdocs/`, no
site), start `errdocs serve DATA --dev-addr 127.0.0.1:PORT` and time, from the start of the
command, the first answer of the server (any status: the "still building" notice), the first
200 of `/` (the home page), and the end of the build (the server's line `... units: N built,
M reused`, printed once the site is in place). Then stop it and start it again in the same
project: the warm start (`.errdocs/` and the site there). Printed with `uptime`: figures taken
on a loaded machine are upper bounds.

    .venv/bin/python bench/synth.py 20000 /tmp/serve/d20k.jsonl
    nice -n 10 .venv/bin/python bench/serve_bench.py /tmp/serve/d20k.jsonl
"""

from __future__ import annotations

import argparse
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from run import project  # bench/ is not a package: its folder is on sys.path

BIN = Path(sys.executable).parent


@dataclass
class Timing:
    """Seconds from the start of `errdocs serve` to each event (None: never seen)."""

    what: str
    first_answer: float | None
    home_page: float | None
    site_built: float | None
    built_line: str

    def line(self) -> str:
        def show(value: float | None) -> str:
            return "-" if value is None else f"{value:.1f} s"

        return (f"{self.what}: first answer {show(self.first_answer)}, home page (200 of /) "
                f"{show(self.home_page)}, whole site built {show(self.site_built)} "
                f"[{self.built_line}]")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def status(url: str) -> int | None:
    """The status of ``url``, None when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def serve_once(what: str, data: Path, where: Path, jobs: int | None, limit: float) -> Timing:
    """Start `errdocs serve`, time its events, stop it."""
    port = free_port()
    command = [str(BIN / "errdocs"), "serve", str(data), "--dev-addr", f"127.0.0.1:{port}"]
    if jobs:
        command += ["--jobs", str(jobs)]
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=where, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    built: list[tuple[float, str]] = []
    lines: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            if " units: " in line and not built:
                built.append((time.perf_counter() - start, line.strip()))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    first = home = None
    try:
        while time.perf_counter() - start < limit and not built:
            if process.poll() is not None:
                raise SystemExit("errdocs serve stopped:\n" + "\n".join(lines[-20:]))
            answer = status(f"http://127.0.0.1:{port}/") if home is None else 200
            now = time.perf_counter() - start
            if answer is not None and first is None:
                first = now
            if answer == 200 and home is None:
                home = now
            time.sleep(0.1 if home is None else 0.5)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
        reader.join(timeout=10)
    done, line = built[0] if built else (None, "not built within the limit")
    return Timing(what, first, home, done, line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="The records (e.g. bench/synth.py's).")
    parser.add_argument("--where", type=Path, default=Path("/tmp/errdocs-serve-bench"),
                        help="The project copy (made afresh).")
    parser.add_argument("--jobs", type=int, default=None, help="errdocs serve --jobs.")
    parser.add_argument("--limit", type=float, default=1800.0,
                        help="Seconds to wait for a build.")
    args = parser.parse_args(argv)
    data = args.data.resolve()
    where = project(args.where)
    for what in ("cold", "warm"):
        load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
        print(f"{what}: start, uptime: {load}", flush=True)
        print(serve_once(what, data, where, args.jobs, args.limit).line(), flush=True)
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"end, uptime: {load}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
