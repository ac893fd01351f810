#!/usr/bin/env python3
"""Set-up in one command, on a fresh machine with only Python 3.11.

    python3 dev.py demo   # virtualenv, install, migrate, demo data, serve on http://127.0.0.1:8000
    python3 dev.py test   # virtualenv, install with test extras (and Chromium if missing), .env, the suite

Only the standard library is used here, because nothing else is installed yet when it runs.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PY = VENV / "bin" / "python"
CHROMIUM = Path("/usr/bin/chromium")
PROJECT_PACKAGES = ("assistant", "preferences", "skills", "workflows")


def run(*cmd: str | Path, env: dict[str, str] | None = None) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], cwd=ROOT, check=True, env=env)


def ensure_venv(extras: str) -> None:
    """The virtualenv with the project installed: by uv, which installs the dependencies in about a
    fifth of pip's time (a minute of every CI run), or by pip when uv cannot be had.

    Everything is compiled to bytecode here, once: uv does not compile by default, and where
    PYTHONDONTWRITEBYTECODE is set (as on our machines) Python never keeps what it compiles, so
    every command (a server, a worker, `manage.py run_scenarios` on one file) would compile some
    1,750 modules again as it starts: 2.5 of its 4.3 seconds, measured."""
    if not PY.exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    target = f".[{extras}]" if extras else "."
    try:
        run(PY, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "uv")
        run(VENV / "bin" / "uv", "pip", "install", "--quiet", "--python", PY, "-e", target)
    except subprocess.CalledProcessError:
        print("uv could not install the project; installing it with pip instead.", flush=True)
        run(PY, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
        run(PY, "-m", "pip", "install", "--quiet", "-e", target)
    # The installed packages and the project's own (installed editable); what is compiled already
    # is skipped, and a stale file is only recompiled in memory, never used wrongly (Python checks
    # each source's time and size).
    try:
        run(PY, "-m", "compileall", "-q", "-j", "0", VENV / "lib", *PROJECT_PACKAGES)
    except subprocess.CalledProcessError:
        # A package may ship a file that is not Python 3 (test data): it stays uncompiled, the
        # rest is compiled, and nothing else depends on it.
        print("Some files could not be compiled (listed above); they are compiled when imported.")


def ensure_env_file() -> None:
    """A SECRET_KEY of this installation, made once and kept in .env (never committed)."""
    env_file = ROOT / ".env"
    if not env_file.exists():
        # Created readable by its owner only: never world-readable, not even for a moment.
        fd = os.open(env_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(f"SECRET_KEY={secrets.token_urlsafe(50)}\n")


def ensure_chromium() -> None:
    """Debian's Chromium for the browser test; Playwright's own browser downloads are never used."""
    if CHROMIUM.exists() or not shutil.which("apt-get") or os.geteuid() != 0:
        return
    run("apt-get", "update", "-qq")
    run("apt-get", "install", "-y", "-qq", "chromium")


def demo(args: argparse.Namespace) -> None:
    ensure_venv("")
    ensure_env_file()
    manage = (PY, "manage.py")
    run(*manage, "migrate", "--noinput")
    run(*manage, "collectstatic", "--noinput", "--verbosity", "0")
    run(*manage, "seed_demo")
    print(f"\nCalendar Assistant is starting on http://127.0.0.1:{args.port}/ (Ctrl+C stops it).", flush=True)
    os.execv(
        str(VENV / "bin" / "daphne"),
        ["daphne", "-b", "127.0.0.1", "-p", str(args.port), "assistant.asgi:application"],
    )


def test(args: argparse.Namespace) -> None:
    if not args.no_install:
        ensure_venv("test,bench")
        ensure_chromium()
    # The suite runs with DEBUG on, but the commands the README gives beside it (run_scenarios,
    # golden, bench) run as installed, with DEBUG off, and need this installation's key.
    ensure_env_file()
    env = {**os.environ, "DEBUG": os.environ.get("DEBUG", "1")}
    pytest_args = args.pytest_args[1:] if args.pytest_args[:1] == ["--"] else args.pytest_args
    result = subprocess.run([str(PY), "-m", "pytest", *pytest_args], cwd=ROOT, env=env)
    sys.exit(result.returncode)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_demo = sub.add_parser("demo", help="install, load demo data and serve on 127.0.0.1")
    p_demo.add_argument("--port", type=int, default=8000)
    p_demo.set_defaults(func=demo)
    p_test = sub.add_parser("test", help="install with test extras and run the whole suite")
    p_test.add_argument("--no-install", action="store_true", help="skip installing (already done)")
    p_test.add_argument("pytest_args", nargs=argparse.REMAINDER, help="passed on to pytest")
    p_test.set_defaults(func=test)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
