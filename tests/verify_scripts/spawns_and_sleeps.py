"""Starts a child process (as a DataLoader starts workers), writes both pids, prints one
loss line and sleeps: determinism-verify must stop both on a timeout or Ctrl-C.  With
``--exit`` it exits at once and leaves the child running, holding its stdout: the run
must still end, and the child must not outlive it."""

import os
import subprocess
import sys
import time


def main(pid_file, leave):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(pid_file, "w") as handle:
        handle.write("%d %d\n" % (os.getpid(), child.pid))
    print("step 0 loss 1.0", flush=True)
    if not leave:
        time.sleep(120)


if __name__ == "__main__":
    main(sys.argv[1], "--exit" in sys.argv)
