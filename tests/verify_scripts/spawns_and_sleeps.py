"""Starts a child process (as a DataLoader starts workers), writes both pids, prints one
loss line and sleeps: determinism-verify must stop both on a timeout or Ctrl-C."""

import os
import subprocess
import sys
import time


def main(pid_file):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(pid_file, "w") as handle:
        handle.write("%d %d\n" % (os.getpid(), child.pid))
    print("step 0 loss 1.0", flush=True)
    time.sleep(120)


if __name__ == "__main__":
    main(sys.argv[1])
