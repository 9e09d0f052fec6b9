"""One run of the command: a subprocess in its own process group, its output captured,
a timeout, and progress on stderr while it runs.

The command runs unattended (stdin is ``/dev/null``), so two runs cannot wait on input.
Its own process group lets a timeout or Ctrl-C stop what it started too (DataLoader
workers), and lets us stop what it left behind before the next run starts.
"""

import os
import signal
import subprocess
import sys
import threading
import time
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence

from ..console import plural

POLL = 0.2  # seconds between progress updates and timeout checks
GRACE = 5.0  # seconds a stopped command gets to exit before SIGKILL


class RunResult(NamedTuple):
    number: int  # 1-based
    returncode: Optional[int]  # None when it was stopped by the timeout
    out: bytes
    err: bytes
    seconds: float

    @property
    def stdout(self) -> str:
        return self.out.decode("utf-8", "replace")

    @property
    def stderr(self) -> str:
        return self.err.decode("utf-8", "replace")

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


class Progress:
    """``run 1/2: 12 s, 3 steps`` on stderr: updated in place on a terminal, a line at the
    start and the end of each run otherwise (logs of CI jobs)."""

    def __init__(self, runs: int, stream=None):
        self.runs = runs
        self.stream = stream if stream is not None else sys.stderr
        self.live = hasattr(self.stream, "isatty") and self.stream.isatty()

    def announce(self, text: str) -> None:
        self._say(text, final=True)

    def start(self, number: int, note: str) -> None:
        self._say("run %d/%d%s" % (number, self.runs, note), final=not self.live)

    def tick(self, number: int, seconds: float, steps: int) -> None:
        if self.live:
            self._say("run %d/%d: %.0f s, %s so far" % (number, self.runs, seconds, plural(steps, "step")),
                      final=False)

    def end(self, number: int, result: RunResult, steps: int) -> None:
        how = "timed out" if result.timed_out else "exit %d" % result.returncode
        self._say("run %d/%d: %s after %.1f s, %s" % (number, self.runs, how, result.seconds, plural(steps, "step")),
                  final=True)

    def _say(self, text: str, final: bool) -> None:
        line = "determinism-verify: " + text
        if self.live:
            self.stream.write("\r\x1b[K" + line + ("\n" if final else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def run_command(command: Sequence[str], number: int, env: Dict[str, str], timeout: Optional[float],
                is_step: Callable[[str], bool], progress: Progress) -> RunResult:
    """Run ``command`` once.  ``OSError`` when it cannot start; ``KeyboardInterrupt`` stops
    its process group before it propagates."""
    start = time.monotonic()
    process = subprocess.Popen(
        list(command), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        start_new_session=os.name == "posix",
    )
    steps = [0]
    chunks = {"out": [], "err": []}  # type: Dict[str, List[bytes]]

    def read(pipe, into: List[bytes]) -> None:
        for line in iter(pipe.readline, b""):
            into.append(line)
            if is_step(line.decode("utf-8", "replace")):
                steps[0] += 1
        pipe.close()

    readers = [threading.Thread(target=read, args=(process.stdout, chunks["out"]), daemon=True),
               threading.Thread(target=read, args=(process.stderr, chunks["err"]), daemon=True)]
    for reader in readers:
        reader.start()
    returncode = None  # type: Optional[int]
    try:
        while True:
            try:
                returncode = process.wait(timeout=POLL)
                break
            except subprocess.TimeoutExpired:
                elapsed = time.monotonic() - start
                if timeout is not None and elapsed > timeout:
                    _stop(process)
                    break
                progress.tick(number, elapsed, steps[0])
        _stop_leftovers(process, readers)
    except BaseException:  # Ctrl-C: the command is in its own group and did not get it
        _stop(process)
        raise
    for reader in readers:
        reader.join()
    return RunResult(number, returncode, b"".join(chunks["out"]), b"".join(chunks["err"]),
                     time.monotonic() - start)


def _signal_group(process: subprocess.Popen, signum: int) -> bool:
    """Send ``signum`` to the command's process group; False when nothing is left in it."""
    try:
        if os.name == "posix":
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM the command and its children, SIGKILL what is still there after GRACE."""
    if _signal_group(process, signal.SIGTERM):
        try:
            process.wait(timeout=GRACE)
        except subprocess.TimeoutExpired:
            pass
        _signal_group(process, getattr(signal, "SIGKILL", signal.SIGTERM))
    process.wait()


def _stop_leftovers(process: subprocess.Popen, readers: Sequence[threading.Thread]) -> None:
    """The command has exited; what it started and left running would hold our pipes open
    and run into the next run: stop it too."""
    for reader in readers:
        reader.join(timeout=POLL)
    if any(reader.is_alive() for reader in readers) and _signal_group(process, signal.SIGTERM):
        for reader in readers:
            reader.join(timeout=GRACE)
        _signal_group(process, getattr(signal, "SIGKILL", signal.SIGTERM))
