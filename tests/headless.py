"""A page rendered in headless Chromium, and what is broken in it: an image that does not render, a link to a
missing file or anchor, a link off the machine, a script error.

The page is loaded from a copy that starts with a ``<base>`` pointing at the page's folder (so its relative
links resolve as they do for the original) and a probe script: it records script errors and failed resource
loads as they happen and, once the page has loaded, every image the browser could not decode, and writes
them into the DOM, which ``--dump-dom`` prints. The links of the dumped DOM are then checked on disk."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
PROBE_ID = "headless-probe"
_PROBE = """<script>
window.__problems = [];
window.addEventListener("error", function (event) {
  var target = event.target;
  if (target && target !== window && (target.src || target.href)) {
    var link = target.getAttribute("src") || target.getAttribute("href");
    window.__problems.push("resource did not load: " + link);
  } else {
    window.__problems.push("script error: " + event.message);
  }
}, true);
window.addEventListener("unhandledrejection", function (event) {
  window.__problems.push("unhandled promise rejection: " + event.reason);
});
window.addEventListener("load", function () {
  for (var image of document.images) {
    if (!image.complete || image.naturalWidth === 0) {
      window.__problems.push("image not rendered: " + image.getAttribute("src"));
    }
  }
  var probe = document.createElement("pre");
  probe.id = "PROBE_ID";
  probe.textContent = JSON.stringify(window.__problems);
  document.body.appendChild(probe);
});
</script>""".replace("PROBE_ID", PROBE_ID)


def find_chromium() -> str | None:
    """The first Chromium (or Chrome) executable on the PATH."""
    return next((path for path in map(shutil.which, CHROMIUM) if path), None)


class _Dom(HTMLParser):
    """The ids, link targets, image sources and probe text of a dumped DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.images: list[str] = []
        self.probe: str | None = None
        self._in_probe = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        if tag == "a" and attributes.get("href") is not None:
            self.links.append(attributes["href"])
        if tag == "img":
            self.images.append(attributes.get("src") or "")
        self._in_probe = attributes.get("id") == PROBE_ID
        if self._in_probe:
            self.probe = ""

    def handle_data(self, data: str) -> None:
        if self._in_probe:
            self.probe = (self.probe or "") + data

    def handle_endtag(self, tag: str) -> None:
        self._in_probe = False


def dump_dom(chromium: str, page: Path, timeout: float = 120) -> str:
    """The DOM of ``page`` (an HTML file) after it loaded in headless Chromium, with the probe's findings."""
    source = page.read_text(encoding="utf-8")
    head = f'<base href="{page.parent.resolve().as_uri()}/">{_PROBE}'
    with tempfile.TemporaryDirectory() as scratch:
        probed = Path(scratch) / "probed.html"
        probed.write_text(source.replace("<head>", "<head>" + head, 1), encoding="utf-8")
        command = [
            chromium,
            "--headless",
            "--no-sandbox",  # as root in a container, Chromium refuses to start with its sandbox
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={Path(scratch) / 'profile'}",
            "--virtual-time-budget=10000",
            "--dump-dom",
            probed.as_uri(),
        ]
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0 or "<html" not in result.stdout:
        raise RuntimeError(f"chromium failed ({result.returncode}): {result.stderr[-2000:]}")
    return result.stdout


def page_problems(chromium: str, page: Path) -> list[str]:
    """Everything broken in ``page`` rendered by ``chromium``; empty when the page is sound."""
    dom = _Dom()
    dom.feed(dump_dom(chromium, page))
    if dom.probe is None:
        return ["the page did not finish loading (no probe output)"]
    problems = list(json.loads(dom.probe))
    for link in dom.links:
        problems += _link_problems(link, page.parent, dom.ids, "link")
    for image in dom.images:
        problems += _link_problems(image, page.parent, dom.ids, "image")
    return problems


def _link_problems(target: str, folder: Path, ids: set[str], what: str) -> list[str]:
    parts = urlsplit(target)
    if parts.scheme == "data":
        return []
    if parts.scheme or parts.netloc:
        return [f"{what} leaves the page's folder: {target}"]
    if parts.path and not (folder / unquote(parts.path)).exists():
        return [f"{what} to a missing file: {target}"]
    if not parts.path and parts.fragment and parts.fragment not in ids:
        return [f"{what} to a missing anchor: {target}"]
    return []
