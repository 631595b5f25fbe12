"""Stage 4, files: put the in-memory site and its zip on disk atomically.

Both are first written in full next to their targets (a hidden sibling folder
and a hidden sibling file); only when both are complete are they swapped in
with renames. A reader (or ``serve``) never sees half a site, and a build that
fails, even while writing, leaves the previous ``site/`` and zip exactly as they
were, with no temporary files left behind.
"""

from __future__ import annotations

import io
import shutil
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path

from sitegen.reproducible import ZIP_DATE
from sitegen.site import Site


def write_tree(files: dict[str, bytes], folder: Path) -> None:
    for name, data in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def stage_folder(files: dict[str, bytes], out: Path) -> Path:
    """``files`` written into a new hidden sibling of ``out`` (removed again on failure)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{out.name}-new-", dir=out.parent))
    try:
        fresh.chmod(0o755)
        write_tree(files, fresh)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    return fresh


def stage_file(data: bytes, target: Path) -> Path:
    """``data`` written into a new hidden sibling of ``target`` (removed again on failure)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}-", delete=False) as handle:
        staged = Path(handle.name)
        try:
            handle.write(data)
        except BaseException:
            handle.close()
            staged.unlink(missing_ok=True)
            raise
    staged.chmod(0o644)
    return staged


def swap_folder(fresh: Path, out: Path) -> None:
    """Put ``fresh`` where ``out`` is: two renames, the old folder back if the second fails."""
    old = out.with_name(f".{out.name}-old")
    shutil.rmtree(old, ignore_errors=True)
    had_old = out.exists()
    if had_old:
        out.rename(old)
    try:
        fresh.rename(out)
    except BaseException:
        if had_old:
            old.rename(out)
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)


def publish(site: Site, out: Path, files: Mapping[Path, bytes]) -> None:
    """Replace the folder ``out`` with ``site`` and each of ``files`` (the zip, the single file).

    Everything is staged beside its target first; only then are they swapped in.
    """
    fresh = stage_folder(site.files, out)
    staged: dict[Path, Path] = {}
    try:
        for target, data in files.items():
            staged[target] = stage_file(data, target)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        for path in staged.values():
            path.unlink(missing_ok=True)
        raise
    try:
        swap_folder(fresh, out)
    except BaseException:
        for path in staged.values():
            path.unlink(missing_ok=True)
        raise
    for target, path in staged.items():
        path.replace(target)


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
