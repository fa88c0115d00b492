"""Installs the gpuvm Python package from the repository, offline:

    pip install ./python          (uses the setuptools already installed)

The package runs the repository's built binary; the installed copy
remembers where this repository is (gpuvm/_built_from.py), so it finds
build/gpuvm without GPUVM_BIN."""
import os

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPy(build_py):
    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "gpuvm", "_built_from.py")
        with open(target, "w", encoding="utf-8") as f:
            f.write("# written by python/setup.py at install time\n")
            f.write(f"REPOSITORY = {os.path.dirname(HERE)!r}\n")


setup(
    name="gpuvm",
    version="0.1.0",
    description="Drive the gpuvm GPU virtual-memory simulator from Python: runs, sweeps, "
                "validation; results as pandas DataFrames",
    long_description=open(os.path.join(HERE, "README.md"), encoding="utf-8").read(),
    packages=["gpuvm"],
    python_requires=">=3.8",
    # pandas gives the DataFrames (Debian: python3-pandas); not required to run
    extras_require={"dataframes": ["pandas"], "test": ["pytest", "pandas"]},
    cmdclass={"build_py": BuildPy},
)
