"""Put on PYTHONPATH by tests/conftest.py: the subprocesses of the test suite check the files they write against
their JSON Schemas (tower_schema_audit)."""

import tower_schema_audit

tower_schema_audit.install_from_env()
