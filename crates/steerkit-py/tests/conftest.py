"""Shared fixtures: the `steerkit` command the outputs are compared with."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def cli():
    """Runs the `steerkit` command (STEERKIT_BIN, else target/release/steerkit) with arguments."""
    binary = pathlib.Path(os.environ.get("STEERKIT_BIN", ROOT / "target" / "release" / "steerkit"))
    if not binary.is_file():
        pytest.fail(f"no steerkit command at {binary}: build it with `cargo build --release` or set STEERKIT_BIN")

    def run(*args):
        done = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        return done.stdout

    return run
