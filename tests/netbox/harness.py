"""Drive a real NetBox as a user does: log in, open an Import page, post the file.

The NetBox is the one ``scripts/netbox-up.sh up`` stands up; the tests find it
by the variables of the env file that script writes
(``CLUSTER_DESIGNER_NETBOX_URL``, ``_TOKEN``, ``_USER``, ``_PASSWORD``), set in
the environment or read from the file named by ``CLUSTER_DESIGNER_NETBOX_ENV``.
Imports go through NetBox's own bulk-import views (``/dcim/<model>/import/``,
the form's CSRF token, ``format=auto`` as the page's default); counts and cable
ends are read back through the REST API with the token.

Run as a script to import an export folder in the README's order and print the
time per file: ``python -m tests.netbox.harness DIR``.
"""

from __future__ import annotations

import html
import http.cookiejar
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV_FILE = "CLUSTER_DESIGNER_NETBOX_ENV"
_KEYS = ("URL", "TOKEN", "USER", "PASSWORD")


def settings() -> dict[str, str] | None:
    """URL, TOKEN, USER, PASSWORD of the local NetBox, or None when not set up."""
    found = {k: os.environ.get(f"CLUSTER_DESIGNER_NETBOX_{k}", "") for k in _KEYS}
    path = os.environ.get(ENV_FILE)
    if path and Path(path).is_file():
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            m = re.match(r"(?:export\s+)?CLUSTER_DESIGNER_NETBOX_(\w+)=(.*)", line)
            if m and m.group(1) in _KEYS and not found[m.group(1)]:
                found[m.group(1)] = m.group(2).strip().strip("'\"")
    return found if all(found.values()) else None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


@dataclass
class ImportResult:
    """What NetBox said about one import."""

    ok: bool
    message: str
    seconds: float


class NetBox:
    """A logged-in session on the web UI plus REST with the API token."""

    def __init__(self, url: str, token: str, user: str, password: str) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.jar = http.cookiejar.CookieJar()
        self.web = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect()
        )
        self._login(user, password)

    @classmethod
    def from_env(cls) -> NetBox | None:
        got = settings()
        if got is None:
            return None
        return cls(got["URL"], got["TOKEN"], got["USER"], got["PASSWORD"])

    # -- web UI ----------------------------------------------------------------
    def _get(self, path: str) -> str:
        with self.web.open(self.url + path, timeout=120) as r:
            return str(r.read().decode("utf-8"))

    def _csrf(self, page: str) -> str:
        m = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        if m is None:
            raise RuntimeError("NetBox page without a CSRF token")
        return m.group(1)

    def _post(
        self, path: str, fields: dict[str, str], timeout: float
    ) -> tuple[int, str]:
        data = urllib.parse.urlencode(fields).encode()
        req = urllib.request.Request(
            self.url + path,
            data=data,
            headers={"Referer": self.url + path},
            method="POST",
        )
        try:
            with self.web.open(req, timeout=timeout) as r:
                return r.status, r.read().decode("utf-8")
        except urllib.error.HTTPError as exc:
            if exc.code in (301, 302, 303):
                return exc.code, exc.headers.get("Location", "")
            return exc.code, exc.read().decode("utf-8", "replace")

    def _login(self, user: str, password: str) -> None:
        page = self._get("/login/")
        code, _ = self._post(
            "/login/",
            {
                "csrfmiddlewaretoken": self._csrf(page),
                "username": user,
                "password": password,
                "next": "/",
            },
            timeout=60,
        )
        if code != 302:
            raise RuntimeError(f"NetBox login as {user} failed (HTTP {code})")

    def import_text(
        self, model: str, text: str, fmt: str = "auto", timeout: float = 7200
    ) -> ImportResult:
        """Paste ``text`` on ``/<model>/import/`` (e.g. ``dcim/cables``) and submit."""
        path = f"/{model}/import/"
        page = self._get(path)
        t0 = time.perf_counter()
        code, body = self._post(
            path,
            {
                "csrfmiddlewaretoken": self._csrf(page),
                "import_method": "direct",
                "data": text,
                "format": fmt,
                "csv_delimiter": "auto",
            },
            timeout=timeout,
        )
        seconds = time.perf_counter() - t0
        if code == 302:
            return ImportResult(True, "imported", seconds)
        return ImportResult(False, _errors(body) or f"HTTP {code}", seconds)

    def export(self, model: str, **filters: Any) -> str:
        """The list page's Export > YAML (or CSV: all data) of ``model``."""
        query = urllib.parse.urlencode({"export": "", **filters})
        return self._get(f"/{model}/?{query}")

    # -- REST ------------------------------------------------------------------
    def api(self, path: str, **params: Any) -> Any:
        query = urllib.parse.urlencode(params)
        req = urllib.request.Request(
            f"{self.url}/api/{path.strip('/')}/" + (f"?{query}" if query else ""),
            headers={
                "Authorization": f"Token {self.token}",
                "Accept": "application/json",
            },
        )
        with urllib.request.urlopen(req, timeout=300) as r:
            return json.loads(r.read())

    def api_post(self, path: str, payload: Any) -> tuple[int, Any]:
        req = urllib.request.Request(
            f"{self.url}/api/{path.strip('/')}/",
            data=json.dumps(payload).encode(),
            headers={
                "Authorization": f"Token {self.token}",
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
            method="POST",
        )
        try:
            with urllib.request.urlopen(req, timeout=300) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")

    def count(self, path: str, **params: Any) -> int:
        return int(self.api(path, limit=1, brief=1, **params)["count"])

    def all(self, path: str, **params: Any) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        offset = 0
        while True:
            page = self.api(path, limit=1000, offset=offset, **params)
            out += page["results"]
            offset += len(page["results"])
            if not page.get("next") or not page["results"]:
                return out

    def exists(self, path: str, **params: Any) -> bool:
        return self.count(path, **params) > 0

    def import_folder(self, folder: Path, log: Any = None) -> dict[str, ImportResult]:
        """Import an export folder in the README's order; shared rows NetBox has
        already (manufacturers, roles, device types of an earlier design) are
        left out, as the README says."""
        from designer.io.export.netbox import IMPORT_STEPS

        results: dict[str, ImportResult] = {}
        for name, _, model in IMPORT_STEPS:
            text = (folder / name).read_text(encoding="utf-8")
            text = self.missing_rows(name, text)
            if text is None:
                results[name] = ImportResult(True, "all present", 0.0)
                continue
            r = self.import_text(model, text)
            results[name] = r
            if log is not None:
                log(f"{name}: {r.message} ({r.seconds:.1f} s)")
            if not r.ok:
                break
        return results

    def missing_rows(self, name: str, text: str) -> str | None:
        """The rows (or YAML documents) of a shared file NetBox lacks; None: none."""
        if name in ("manufacturers.csv", "device-roles.csv"):
            api = "dcim/" + ("manufacturers" if name[0] == "m" else "device-roles")
            have = {o["name"] for o in self.all(api, brief=1)}
            lines = text.splitlines(keepends=True)
            keep = [ln for ln in lines[1:] if _first_field(ln) not in have]
            return lines[0] + "".join(keep) if keep else None
        if name == "device-types.yaml":
            have = {
                (o["manufacturer"]["name"], o["model"])
                for o in self.all("dcim/device-types")
            }
            import yaml

            docs = [d for d in text.split("---\n") if d.strip()]
            keep = []
            for doc in docs:
                data = yaml.safe_load(doc)
                if (data["manufacturer"], data["model"]) not in have:
                    keep.append("---\n" + doc)
            return "".join(keep) if keep else None
        return text


def _first_field(line: str) -> str:
    import csv

    return next(csv.reader([line]))[0]


def _errors(page: str) -> str:
    """The error messages of a NetBox form page, as text."""
    found = re.findall(
        r'<(?:div|li|span)[^>]*class="[^"]*(?:alert-danger|errorlist|invalid-feedback|'
        r'text-danger)[^"]*"[^>]*>(.*?)</(?:div|li|span)>',
        page,
        re.S,
    )
    texts = []
    for f in found:
        t = html.unescape(re.sub(r"<[^>]+>", " ", f))
        t = re.sub(r"\s+", " ", t).strip()
        if t and t not in texts:
            texts.append(t)
    if not texts:
        texts = [html.unescape(m) for m in re.findall(r"(Record \d+[^<]*)", page)]
    return "; ".join(texts)[:2000]


def main(argv: list[str]) -> int:
    nb = NetBox.from_env()
    if nb is None:
        print("NetBox not set up: run scripts/netbox-up.sh up", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    results = nb.import_folder(Path(argv[0]), log=lambda s: print(s, flush=True))
    print(f"total {time.perf_counter() - t0:.1f} s")
    return 0 if all(r.ok for r in results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
