"""``python -m kvpage build|serve``: the book's command line, from a checkout of this project.

The command line is the build's (``build.py`` and ``sitegen/`` beside this
package), which needs Jinja2 and markdown-it; the browser gets neither. So this
one module is left out of the wheel that runs in the browser (``exclude`` in
``[tool.hatch.build.targets.wheel]`` of pyproject.toml; ``tests/sitegen/test_cli.py``
checks the built wheel), and it imports the build only when it runs.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> int:
    project = Path(__file__).resolve().parent.parent
    if not (project / "build.py").is_file():
        print(f"python -m kvpage needs the project's build.py next to {project / 'kvpage'}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(project))  # the project's build.py, not the "build" package of the same name
    import build

    return build.main(prog="python -m kvpage")


if __name__ == "__main__":
    sys.exit(main())
