"""End-to-end tests in headless Chromium (a package so its modules can share conftest helpers)."""
