"""pytest setup for ferry's Python binding (run by CTest: ctest -L python).
The package is found through PYTHONPATH (CTest sets it to the build tree)."""
