import os


def count_python_files(root: str) -> int:
    """Return the number of files ending in ".py" under the directory root,
    searching all subdirectories."""
