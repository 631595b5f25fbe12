"""Stage 4, files: put the in-memory site on disk atomically.

The new site is written next to the old one and swapped in with renames, so a
reader (or ``serve``) never sees half a site, and a failed build leaves the
previous ``site/`` exactly as it was.
"""

from __future__ import annotations

import io
import shutil
import tempfile
import zipfile
from pathlib import Path

from sitegen.site import Site


def write_tree(files: dict[str, bytes], folder: Path) -> None:
    for name, data in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def write_site(site: Site, out: Path) -> None:
    """Replace ``out`` with ``site``, via a sibling temporary folder."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{out.name}-new-", dir=out.parent))
    fresh.chmod(0o755)
    try:
        write_tree(site.files, fresh)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    old = out.with_name(f".{out.name}-old")
    shutil.rmtree(old, ignore_errors=True)
    if out.exists():
        out.rename(old)
    fresh.rename(out)
    shutil.rmtree(old, ignore_errors=True)


ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def zip_bytes(site: Site, top: str) -> bytes:
    """The site as a zip with one top folder, sorted entries and fixed dates (reproducible)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data in sorted(site.files.items()):
            info = zipfile.ZipInfo(f"{top}/{name}", date_time=ZIP_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


def write_file(data: bytes, target: Path) -> None:
    """Write ``target`` via a temporary sibling and a rename: never half a file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}-", delete=False) as handle:
        handle.write(data)
    Path(handle.name).chmod(0o644)
    Path(handle.name).replace(target)
