"""A minimal Language Server Protocol client for the tests: JSON-RPC over a real server's stdio."""

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, List, Optional


class LanguageServer:
    """``python -m pylsp`` as an editor starts it, spoken to over stdin/stdout."""

    def __init__(self, root: Path, settings: dict, cwd: Optional[Path] = None) -> None:
        self.root = root
        env = dict(os.environ)
        # pylsp's flake8 plugin runs the ``flake8`` executable: the one of this environment.
        env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
        self.stderr = open(root / "pylsp.log", "w+")
        self.process = subprocess.Popen([sys.executable, "-m", "pylsp"], cwd=str(cwd or root), env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr)
        self.responses = {}
        self.arrived = threading.Condition()
        self.notifications: "queue.Queue[dict]" = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        self.request("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}})
        self.notify("initialized", {})
        self.notify("workspace/didChangeConfiguration", {"settings": {"pylsp": settings}})

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:
                header = stream.readline()
                if not header:
                    return  # the server exited
                header = header.strip()
                if not header:
                    break
                name, _, value = header.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            message = json.loads(stream.read(length))
            if "id" in message and "method" not in message:
                with self.arrived:
                    self.responses[message["id"]] = message
                    self.arrived.notify_all()
            elif "id" in message:  # a request from the server (progress, configuration): accept it
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            else:
                self.notifications.put(message)

    def _send(self, message: dict) -> None:
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: dict, timeout: float = 60):
        self.next_id += 1
        number = self.next_id
        self._send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        with self.arrived:
            if not self.arrived.wait_for(lambda: number in self.responses, timeout):
                raise TimeoutError("no answer to %s in %ss; server log:\n%s" % (method, timeout, self.log()))
            response = self.responses.pop(number)
        if "error" in response:
            raise RuntimeError("%s failed: %s" % (method, response["error"]))
        return response["result"]

    def diagnostics(self, uri: str, until: Callable[[List[dict]], bool], timeout: float = 60) -> List[dict]:
        """The first diagnostics published for ``uri`` that satisfy ``until``."""
        deadline = time.monotonic() + timeout
        seen = None
        while time.monotonic() < deadline:
            try:
                message = self.notifications.get(timeout=max(0.05, deadline - time.monotonic()))
            except queue.Empty:
                break
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                seen = message["params"]["diagnostics"]
                if until(seen):
                    return seen
        raise TimeoutError("no matching diagnostics in %ss; last: %s; server log:\n%s" % (timeout, seen, self.log()))

    def log(self) -> str:
        self.stderr.flush()
        self.stderr.seek(0)
        return self.stderr.read()[-4000:]

    def close(self) -> None:
        try:
            self.request("shutdown", {}, timeout=10)
            self.notify("exit", {})
            self.process.wait(timeout=10)
        except Exception:  # noqa: BLE001 - a server that will not stop is killed
            self.process.kill()
            self.process.wait()
        finally:
            self.stderr.close()


def apply_edits(text: str, edits: List[dict]) -> str:
    """Apply LSP ``TextEdit``s (ranges in UTF-16 code units, all relative to ``text``) as an
    editor does."""
    lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)  # LSP's lines

    def offset(position: dict) -> int:
        line = position["line"]
        if line >= len(lines):
            return len(text)
        units = lines[line].encode("utf-16-le")[: 2 * position["character"]]
        return sum(len(x) for x in lines[:line]) + len(units.decode("utf-16-le"))

    spans = sorted(((offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"]) for e in edits),
                   reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def changes_for(action: dict, uri: str) -> Optional[List[dict]]:
    return action.get("edit", {}).get("changes", {}).get(uri)
